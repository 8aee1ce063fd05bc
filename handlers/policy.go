package handlers

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/sightline-lsp/sightline/config"
	"github.com/sightline-lsp/sightline/confine"
	"github.com/sightline-lsp/sightline/policy"
	"github.com/sightline-lsp/sightline/result"
	"github.com/sightline-lsp/sightline/store"
	"github.com/sightline-lsp/sightline/workspace"
)

// The path policy (allow, deny, sensitive globs) is applied where every
// front door passes: document() refuses denied paths for every call, and
// admit, called by the read path, summaries, the write transaction and
// create, asks for approval of sensitive ones.

// Decision is a user's answer to an approval request.
type Decision int

const (
	Deny Decision = iota
	AllowOnce
	AllowSession
)

// Approval is what the user is asked to approve.
type Approval struct {
	Session string
	Agent   string
	Path    string // relative to the workspace root
	Op      string // "read" or "write"
	Rule    string // why the path is sensitive, for the question
	// Detail is what the user approves when it is not access to a path: for
	// Op "merge", the merged diff of a patch.
	Detail string
}

// Approver asks the user to approve access to a sensitive path: the editor
// (window/showMessageRequest) or a terminal. An error means nobody answered.
type Approver interface {
	Approve(ctx context.Context, a Approval) (Decision, error)
}

// compiledPolicy builds the effective policy of a configuration. The globs
// were validated with the configuration; one that still fails is skipped
// (Compile keeps the others) and logged.
func compiledPolicy(c config.Config, log *zap.Logger) *policy.Policy {
	p, err := policy.Compile(c.Policy, c.RepoPolicy)
	if err != nil && log != nil {
		log.Warn("policy glob ignored", zap.Error(err))
	}
	return p
}

// Policy returns the effective path policy.
func (e *Env) Policy() *policy.Policy { return e.settings.policy() }

// verdict applies the policy to a document: the path as named and, when it
// leads through symbolic links, the file it reaches (a link named notes.txt
// must not open .env). A write of a root's .sightline.json needs approval
// whatever the rules say: it could loosen what the agent may do.
func (e *Env) verdict(k workspace.Key, write bool) (policy.Verdict, string) {
	if _, ok := k.Path(); !ok {
		return policy.Verdict{}, string(k) // an editor buffer without a file
	}
	root, rel, err := e.WS.Locate(k)
	if err != nil {
		return policy.Verdict{}, e.WS.Rel(k) // document() answers
	}
	pol := e.Policy()
	rel = filepath.ToSlash(rel)
	v := pol.Check(rel)
	real := rel
	if t, _ := root.Resolve(rel, confine.Read); t.Rel != "" && filepath.ToSlash(t.Rel) != rel { // a refusal still names what it reached
		real = filepath.ToSlash(t.Rel)
		v = policy.Worse(v, pol.Check(real))
	}
	if write && (rel == config.FileName || real == config.FileName) {
		v = policy.Worse(v, policy.Verdict{Kind: policy.Sensitive, Rule: config.FileName, Source: "built-in"})
	}
	return v, e.WS.Rel(k)
}

// denied refuses a path the policy denies.
func (e *Env) denied(k workspace.Key) error {
	v, rel := e.verdict(k, false)
	if v.Kind != policy.Denied {
		return nil
	}
	return deniedErr(rel, v)
}

func deniedErr(rel string, v policy.Verdict) error {
	return result.Errorf(result.Denied, "%s is denied by the path policy (%s); sightline neither reads nor writes it. Do not retry: ask the user if you need it.", rel, v.Describe())
}

// grants are the "allow once" approvals of one call, so a call that looks
// at a file twice (a patch checks, then writes) asks once.
type grants struct {
	mu   sync.Mutex
	keys map[workspace.Key]bool
}

type grantsKey struct{}

// withGrants gives a call its own once-approvals (keeping the caller's).
func withGrants(ctx context.Context) context.Context {
	if ctx.Value(grantsKey{}) != nil {
		return ctx
	}
	return context.WithValue(ctx, grantsKey{}, &grants{keys: map[workspace.Key]bool{}})
}

func grantsOf(ctx context.Context) *grants {
	g, _ := ctx.Value(grantsKey{}).(*grants)
	return g
}

// approvalMemory keeps session approvals when there is no database.
type approvalMemory struct {
	mu   sync.Mutex
	list []store.Approval
}

// admit applies the policy to a call: a denied path is refused, a sensitive
// one needs an approval (remembered for the session, granted for this call,
// or asked for now).
func (e *Env) admit(ctx context.Context, c Caller, k workspace.Key, write bool) error {
	v, rel := e.verdict(k, write)
	switch v.Kind {
	case policy.Allowed:
		return nil
	case policy.Denied:
		return deniedErr(rel, v)
	}
	g := grantsOf(ctx)
	if g != nil {
		g.mu.Lock()
		ok := g.keys[k]
		g.mu.Unlock()
		if ok {
			return nil
		}
	}
	session := c.SessionOr()
	if ok, err := e.approved(ctx, session, rel); err != nil {
		e.Log.Warn("approval lookup", zap.Error(err))
	} else if ok {
		return nil
	}
	op := "read"
	if write {
		op = "write"
	}
	if e.approver == nil {
		return result.Errorf(result.ApprovalRefused,
			"%s is sensitive (%s): it needs the user's approval to %s, and there is no one to ask here. The user can approve it on the command line with --yes or in an editor; do not look for a way around this.", rel, v.Describe(), op)
	}
	d, err := e.approver.Approve(ctx, Approval{Session: session, Agent: c.Agent, Path: rel, Op: op, Rule: v.Describe()})
	if err != nil {
		return result.Errorf(result.ApprovalRefused, "%s is sensitive (%s) and the user's approval to %s it was not given: %v.", rel, v.Describe(), op, err)
	}
	switch d {
	case AllowOnce:
		if g != nil {
			g.mu.Lock()
			g.keys[k] = true
			g.mu.Unlock()
		}
		return nil
	case AllowSession:
		if err := e.remember(ctx, store.Approval{Session: session, Path: rel, Rule: v.Describe(), Agent: c.Agent}); err != nil {
			e.Log.Warn("remember approval", zap.Error(err))
		}
		return nil
	}
	return result.Errorf(result.ApprovalRefused, "The user refused access to %s (%s). Do not retry; ask the user what to do instead.", rel, v.Describe())
}

func (e *Env) approved(ctx context.Context, session, rel string) (bool, error) {
	if e.db != nil {
		// Always the database, never a cache: a revocation by another
		// process (sightline approvals --revoke) takes effect at once.
		return e.db.DB().Approved(ctx, session, rel)
	}
	e.approvals.mu.Lock()
	defer e.approvals.mu.Unlock()
	return slices.ContainsFunc(e.approvals.list, func(a store.Approval) bool { return a.Session == session && a.Path == rel }), nil
}

func (e *Env) remember(ctx context.Context, a store.Approval) error {
	a.Granted = time.Now()
	if e.db != nil {
		return e.db.DB().PutApproval(ctx, a)
	}
	e.approvals.mu.Lock()
	defer e.approvals.mu.Unlock()
	e.approvals.list = slices.DeleteFunc(e.approvals.list, func(b store.Approval) bool { return b.Session == a.Session && b.Path == a.Path })
	e.approvals.list = append(e.approvals.list, a)
	return nil
}

// ApprovalInfo is one remembered approval.
type ApprovalInfo struct {
	Session string    `json:"session"`
	Path    string    `json:"path"`
	Rule    string    `json:"rule"`
	Agent   string    `json:"agent,omitempty"`
	Granted time.Time `json:"granted"`
}

// ApprovalsParams are the params of sightline/approvals: the session (""
// for all) and a path whose approvals to revoke.
type ApprovalsParams struct {
	Session string `json:"session,omitempty"`
	Revoke  string `json:"revoke,omitempty"`
}

// ApprovalsResult lists the remembered approvals (after any revocation).
type ApprovalsResult struct {
	Outcome
	Approvals []ApprovalInfo `json:"approvals"`
	Revoked   int            `json:"revoked,omitempty"`
}

// Approvals lists, and revokes, remembered approvals. Revoke is a path
// relative to the workspace root.
func (e *Env) Approvals(ctx context.Context, p ApprovalsParams) (ApprovalsResult, error) {
	res := ApprovalsResult{Outcome: Outcome{OK: true}, Approvals: []ApprovalInfo{}}
	if p.Revoke != "" {
		if e.db != nil {
			n, err := e.db.DB().RevokeApproval(ctx, p.Session, p.Revoke)
			if err != nil {
				return res, err
			}
			res.Revoked = n
		} else {
			e.approvals.mu.Lock()
			before := len(e.approvals.list)
			e.approvals.list = slices.DeleteFunc(e.approvals.list, func(a store.Approval) bool {
				return a.Path == p.Revoke && (p.Session == "" || a.Session == p.Session)
			})
			res.Revoked = before - len(e.approvals.list)
			e.approvals.mu.Unlock()
		}
		res.Message = fmt.Sprintf("Revoked %d approval(s) of %s.", res.Revoked, p.Revoke)
	}
	var list []store.Approval
	if e.db != nil {
		var err error
		if list, err = e.db.DB().Approvals(ctx, p.Session); err != nil {
			return res, err
		}
	} else {
		e.approvals.mu.Lock()
		for _, a := range e.approvals.list {
			if p.Session == "" || a.Session == p.Session {
				list = append(list, a)
			}
		}
		e.approvals.mu.Unlock()
	}
	for _, a := range list {
		res.Approvals = append(res.Approvals, ApprovalInfo{Session: a.Session, Path: a.Path, Rule: a.Rule, Agent: a.Agent, Granted: a.Granted})
	}
	return res, nil
}

// forgetApprovals drops a session's approvals (its reset).
func (e *Env) forgetApprovals(ctx context.Context, session string) {
	if e.db != nil {
		if err := e.db.DB().RevokeSession(ctx, session); err != nil {
			e.Log.Error("reset approvals", zap.String("session", session), zap.Error(err))
		}
		return
	}
	e.approvals.mu.Lock()
	e.approvals.list = slices.DeleteFunc(e.approvals.list, func(a store.Approval) bool { return a.Session == session })
	e.approvals.mu.Unlock()
}
