package engine

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

// The admission step: every call about a document passes it before the
// document's text is shown or written, whichever door the call came through
// (LSP, the bridge, the CLI, MCP) and wherever the text comes from (the disk
// or an editor buffer). In order:
//
//  1. resolve: the URI becomes a key (a NUL byte is refused);
//  2. confinement: a file lies inside the workspace, as written and through
//     its symbolic links;
//  3. the .git rules: .git's config and hooks are never read, version
//     control folders never written (confine.Resolve, on the path as named
//     and the file it reaches);
//  4. the path policy on both names: deny, then sensitive and its approvals
//     (a write whose own arguments are malformed is refused before any
//     approval is asked: transact);
//  5. once the file is open, the file itself: one with several hard links is
//     not known by its name, so it is sensitive (see admitFile).
//
// One function runs it, admit, for every access a call makes to a document
// (what the access is says which steps apply: access); nothing else in the
// package loads a document or judges a name (TestAdmissionIsOneFunction).
// A refusal comes back as an error of an agent-facing kind, and every
// handler audits its outcome, refusals included; doors pass every path on
// and refuse none themselves (workspace.KeyOf).

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

// approverKey is the context key of a call's own approver.
type approverKey struct{}

// WithApprover gives a call its own approver, in place of the Env's: a
// daemon serving a CLI's call asks that CLI (its --yes, its terminal); nil
// is nobody to ask, as for the CLI run in its own process without either.
func WithApprover(ctx context.Context, ap Approver) context.Context {
	return context.WithValue(ctx, approverKey{}, &ap)
}

// approverOf is the approver of a call: its own (WithApprover), else the
// Env's.
func (e *Env) approverOf(ctx context.Context) Approver {
	if ap, ok := ctx.Value(approverKey{}).(*Approver); ok {
		return *ap
	}
	return e.approver
}

// compiledPolicy builds the effective policy of a configuration: none of
// its rules when they cannot all be read (config.Config.Closed), which
// denies every path rather than serve without the rules it lost. The
// globs were validated with the configuration, so Compile's error is a
// fault: it closes the policy too.
func compiledPolicy(c config.Config, log *zap.Logger) *policy.Policy {
	if p, closed := c.Closed(); closed {
		return policy.Closed(fmt.Sprintf("%s: %s", p.Source, p.What))
	}
	p, err := policy.Compile(c.Policy, c.RepoPolicy)
	if err != nil {
		if log != nil {
			log.Error("policy glob", zap.Error(err))
		}
		return policy.Closed(err.Error())
	}
	return p
}

// maxConfigWarnings bounds the configuration's warnings in one answer.
const maxConfigWarnings = 8

// configWarnings are the configuration's problems as every answer says
// them.
func configWarnings(c config.Config) []string {
	var out []string
	for i, p := range c.Problems {
		if i == maxConfigWarnings {
			out = append(out, fmt.Sprintf("The configuration has %d more problems; each is named once the ones above are fixed.", len(c.Problems)-i))
			break
		}
		out = append(out, p.String())
	}
	return out
}

// closedErr refuses a call while the policy cannot be read: what names
// what was not done, why what to fix.
func closedErr(what, why string) error {
	return result.Errorf(result.Denied, "%s: the path policy cannot be read (%s), so sightline refuses every read and write in this workspace until the configuration is fixed. Do not retry: ask the user to fix it.", what, why)
}

// Policy returns the effective path policy.
func (e *Env) Policy() *policy.Policy { return e.settings.policy() }

// judge runs the admission steps that go by name (confinement, the .git
// rules, the policy) on a placed document and returns the policy's
// verdict, for admit. A denied path is an error; a sensitive one is the
// caller's to approve. A write of a root's .sightline.json needs approval
// whatever the rules say: it could loosen what the agent may do.
func (e *Env) judge(pl workspace.Place, write bool) (policy.Verdict, error) {
	if pl.Path == "" {
		return policy.Verdict{}, nil // an editor buffer without a file
	}
	if pl.Err != nil {
		return policy.Verdict{}, pl.Err
	}
	if pl.Escapes {
		return policy.Verdict{}, result.Errorf(result.Denied, "%s leads outside the workspace (%s) through a symbolic link.", pl.Rel, e.WS.Root())
	}
	rel, root, in := pl.Rel, pl.Root, pl.In
	intent := confine.Read
	if write {
		intent = confine.Write
	}
	named := filepath.ToSlash(in)
	real := named
	// The same rules whether the text comes from the disk or a buffer: an
	// editor's .git/config is .git/config.
	t, err := root.Resolve(in, intent)
	switch {
	case result.KindOf(err) == result.Denied:
		return policy.Verdict{}, err
	case write && err != nil:
		// A write says why before anything is read (a name too long, a
		// file where a folder should be), not what a read would say.
		return policy.Verdict{}, err
	case t.Rel != "": // a refusal for another reason still names what it reached
		real = filepath.ToSlash(t.Rel)
	}
	// A read's other failures (a missing folder, a name too long) are the
	// load's to answer; the rules below hold for the name all the same.
	pol := e.Policy()
	v := pol.Check(named)
	if real != named {
		v = policy.Worse(v, pol.Check(real))
	}
	if write && (named == config.FileName || real == config.FileName) {
		v = policy.Worse(v, policy.Verdict{Kind: policy.Sensitive, Rule: config.FileName, Source: "built-in"})
	}
	if v.Kind == policy.Denied {
		return v, deniedErr(rel, v)
	}
	return v, nil
}

func deniedErr(rel string, v policy.Verdict) error {
	if v.Closed {
		return closedErr(rel+" was neither read nor written", v.Rule)
	}
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

// access is what a call does with a document: which admission steps it
// passes (admit).
type access int

const (
	// readAccess: its text is shown. Judged by name and by the file the
	// text comes from, a sensitive one approved; loaded.
	readAccess access = iota
	// writeAccess: sightline writes it, a new copy renamed over the file:
	// judged as readAccess by a write's rules; a file with several hard
	// links is refused.
	writeAccess
	// toolWriteAccess: the agent's own tool writes it, in place
	// (sightline/check): admitted as a write, but a file with several hard
	// links keeps them, so it needs approval rather than being refused.
	toolWriteAccess
	// createAccess: sightline writes a file that may not exist (a create,
	// every path a patch writes, a rename's new name): judged by name by a
	// write's rules, a sensitive one approved; not loaded.
	createAccess
	// versionsAccess: its recorded versions are shown (a diff): judged by
	// name, a sensitive one approved; not loaded (the file may be gone).
	versionsAccess
	// reportAccess: what sightline knows of it is answered, not its text
	// (its ledger, open, an existence probe, a rename's source, the write
	// transaction's look at the files a call admitted): judged by name,
	// approvals aside; loaded.
	reportAccess
	// nameAccess: judged by name, approvals aside; not loaded (a call about
	// a file that may be gone, a write whose arguments are malformed).
	nameAccess
	// plainReadAccess: a read that asks nobody (ReadDisk's own read of the
	// disk): refused unless its name is plainly allowed; not loaded.
	plainReadAccess
	// againAccess: a place this call admitted already, loaded again (under
	// a write's lock; for its hash once judged by name); not judged again.
	againAccess
)

func (a access) writes() bool {
	return a == writeAccess || a == toolWriteAccess || a == createAccess
}

// asks reports whether a sensitive document needs approval.
func (a access) asks() bool { return a <= versionsAccess }

func (a access) loads() bool { return a <= toolWriteAccess || a == reportAccess || a == againAccess }

// admit is the admission step, the one way to a document: it judges the
// place for the access and returns the document when the access loads it
// (the editor's buffer, else the disk, read through the place judged),
// else the zero Doc. A refusal is an error of an agent-facing kind; pl.Rel
// names the document in answers and the audit.
func (e *Env) admit(ctx context.Context, c Caller, pl workspace.Place, a access) (workspace.Doc, error) {
	if a != againAccess {
		v, err := e.judge(pl, a.writes())
		if err != nil {
			return workspace.Doc{}, err
		}
		switch {
		case v.Kind == policy.Allowed:
		case a == plainReadAccess:
			return workspace.Doc{}, result.Errorf(result.ApprovalRefused, "%s is sensitive (%s): this read asks nobody.", pl.Rel, v.Describe())
		case a.asks():
			if err := e.approve(ctx, c, pl.Key, pl.Rel, v.Describe(), a.writes()); err != nil {
				return workspace.Doc{}, err
			}
		}
	}
	if !a.loads() {
		return workspace.Doc{}, nil
	}
	d, err := e.load(pl)
	if err != nil || !a.asks() {
		return d, err
	}
	if err := e.admitFile(ctx, c, d, a); err != nil {
		return workspace.Doc{}, err
	}
	return d, nil
}

// admitFile decides by the file a document's text comes from, not its name:
// a file with several hard links may be .env, or a key outside the
// workspace, under an innocent name, and nothing short of a walk of every
// file system finds its other names. So it is sensitive: the user approves
// it, told why. Writing one on disk is refused as the write itself would
// refuse it, before anything of it is shown. The link count is the opened
// descriptor's (Get's; an editor buffer's file is opened by Get to count).
func (e *Env) admitFile(ctx context.Context, c Caller, d workspace.Doc, a access) error {
	write := a.writes()
	if !d.Open && d.Real != "" {
		// The file the text was read from, as that read resolved it: a
		// folder swapped for a link after the name was judged leads the read
		// to a file the name was not (the deny rules the read's own
		// resolution applies; what needs approval is judged here).
		if v := e.Policy().Check(filepath.ToSlash(d.Real)); v.Kind != policy.Allowed {
			rel := d.Rel
			if v.Kind == policy.Denied {
				return deniedErr(rel, v)
			}
			if err := e.approve(ctx, c, d.Key, rel, v.Describe(), write); err != nil {
				return err
			}
		}
	}
	n := d.Links // a buffer's: of the file under its name (Get)
	if n <= 1 {
		return nil
	}
	rel := d.Rel
	if a == writeAccess && !d.Open {
		return result.Errorf(result.Denied, "%s has %d hard links; sightline replaces a file by renaming a new copy over it, which would leave the other links with the old text, so it does not write it. Break the link (cp, then mv) or edit it with another tool.", rel, n)
	}
	why := fmt.Sprintf("it has %d hard links, so its name does not say which file it is: it may be a secret such as .env, or a file outside the workspace", n)
	return e.approve(ctx, c, d.Key, rel, why, write)
}

// approve asks for the approval a sensitive document needs; why says what
// makes it sensitive.
func (e *Env) approve(ctx context.Context, c Caller, k workspace.Key, rel, why string, write bool) error {
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
	ap := e.approverOf(ctx)
	if ap == nil {
		return result.Errorf(result.ApprovalRefused,
			"%s is sensitive (%s): it needs the user's approval to %s, and there is no one to ask here. The user can approve it on the command line with --yes or in an editor; do not look for a way around this.", rel, why, op)
	}
	d, err := ap.Approve(ctx, Approval{Session: session, Agent: c.Agent, Path: rel, Op: op, Rule: why})
	if err != nil {
		return result.Errorf(result.ApprovalRefused, "%s is sensitive (%s) and the user's approval to %s it was not given: %v.", rel, why, op, err)
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
		if err := e.remember(ctx, store.Approval{Session: session, Path: rel, Rule: why, Agent: c.Agent}); err != nil {
			e.Log.Warn("remember approval", zap.Error(err))
		}
		return nil
	}
	return result.Errorf(result.ApprovalRefused, "The user refused access to %s (%s). Do not retry; ask the user what to do instead.", rel, why)
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
	Rendering
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
		res.audit(auditRow{caller: Caller{Session: p.Session}}) // a change of the session's state, about no document
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

// load returns a document's text: the editor's buffer when it has the
// document open, else the disk (workspace.GetAt), with the workspace's
// changes applied to the ledger after it (a load may be a first sight or
// a change). Only admit calls it.
func (e *Env) load(pl workspace.Place) (workspace.Doc, error) {
	d, err := e.WS.GetAt(pl)
	e.follow.settle()
	if err == nil {
		// Another caller may have applied its first sight and be restoring
		// it still: wait for what the database holds of it.
		e.follow.restore(d)
	}
	return d, err
}
