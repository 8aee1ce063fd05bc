// Package config holds sightline's settings (PROTOCOL section 10): defaults,
// the workspace's .sightline.json, and the editor's settings layered on top.
package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/sightline-lsp/sightline/charset"
	"github.com/sightline-lsp/sightline/policy"
)

// FileName is the workspace configuration file, at the workspace root.
const FileName = ".sightline.json"

// Config is the effective configuration. Field names match the JSON keys.
type Config struct {
	Guard      string `json:"guard"`      // enforce | warn | off
	AutoExpand bool   `json:"autoExpand"` // return missing lines with a guard refusal
	ReadBudget int    `json:"readBudget"` // characters per read, annotation included
	Extract    string `json:"extract"`    // regex | treesitter
	ApplyVia   string `json:"applyVia"`   // auto | client | disk
	// ApplyTimeoutMs bounds how long a write waits for the editor to answer
	// workspace/applyEdit and report the new text.
	ApplyTimeoutMs int         `json:"applyTimeoutMs"`
	Diagnostics    Diagnostics `json:"diagnostics"`
	// Policy is the user's path policy: defaults, the user's config file and
	// the editor's settings.
	Policy Policy `json:"policy"`
	// RepoPolicy holds the deny and sensitive globs of the workspace's
	// .sightline.json. It is kept apart because the repository may have been
	// written by the agent: it can add rules, never loosen the user's.
	RepoPolicy Policy        `json:"-"`
	Audit      AuditConfig   `json:"audit"`
	History    HistoryConfig `json:"history"`
	// Session is the session whose ledger this editor shows (diagnostics,
	// coverage, lens, hover). Editor setting only.
	Session string `json:"session"`
	// FollowSession makes the editor show, instead of Session, the session
	// that made the latest agent call (an agent's hook session, claude-…,
	// codex-…, as soon as it acts). Editor setting only.
	FollowSession bool `json:"followSession"`
	// Encodings are tried in order for a file that is not UTF-8 and whose
	// encoding neither a byte-order mark nor .editorconfig declares. None
	// by default: a single-byte encoding decodes any bytes, so which one a
	// file is in is the user's to say.
	Encodings []string `json:"encodings"`
}

// Charsets is Encodings looked up (Validate checked every name).
func (c Config) Charsets() []charset.Charset {
	var out []charset.Charset
	for _, n := range c.Encodings {
		if cs, err := charset.Lookup(n); err == nil {
			out = append(out, cs)
		}
	}
	return out
}

// Diagnostics says which ranges the editor is shown.
type Diagnostics struct {
	Unread bool `json:"unread"`
	Stale  bool `json:"stale"`
}

// Policy is the path policy (globs relative to the workspace root).
type Policy = policy.Rules

// AuditConfig bounds the audit log: entries beyond either limit are dropped,
// oldest first (0 keeps everything by that measure).
type AuditConfig struct {
	MaxEntries int `json:"maxEntries"`
	MaxAgeDays int `json:"maxAgeDays"`
}

// HistoryConfig bounds the snapshots kept of written files.
type HistoryConfig struct {
	// MaxBytes bounds the stored (compressed) snapshots of the workspace;
	// the oldest versions are dropped past it.
	MaxBytes int64 `json:"maxBytes"`
}

// Default returns the built-in configuration.
func Default() Config {
	return Config{
		Guard:          "enforce",
		AutoExpand:     true,
		ReadBudget:     24000,
		Extract:        "regex",
		ApplyVia:       "auto",
		ApplyTimeoutMs: 10000,
		Diagnostics:    Diagnostics{Unread: true, Stale: true},
		Policy: Policy{
			Allow:     []string{"**"},
			Deny:      []string{},
			Sensitive: policy.DefaultSensitive(),
		},
		Audit:     AuditConfig{MaxEntries: 1_000_000, MaxAgeDays: 90},
		History:   HistoryConfig{MaxBytes: 256 << 20},
		Session:   "default",
		Encodings: []string{},
	}
}

// UserFile is the user's own configuration file:
// $XDG_CONFIG_HOME/sightline/config.json ($XDG_CONFIG_HOME defaults to
// ~/.config). "" when there is no home folder.
func UserFile() string {
	base := os.Getenv("XDG_CONFIG_HOME")
	if !filepath.IsAbs(base) {
		home, err := os.UserHomeDir()
		if err != nil {
			return ""
		}
		base = filepath.Join(home, ".config")
	}
	return filepath.Join(base, "sightline", "config.json")
}

// Load returns the defaults overlaid with the user's config file and then
// root/.sightline.json. The repository's file sets everything but the
// policy, of which it can only add deny and sensitive globs (RepoPolicy):
// an agent that writes .sightline.json must not be able to widen what it
// may read. A file that does not validate is ignored as a whole, and the
// error says so; the others still apply.
func Load(root string) (Config, error) {
	c := Default()
	var errs []error
	if f := UserFile(); f != "" {
		if data, err := os.ReadFile(f); err == nil {
			if err := c.Merge(data); err != nil {
				errs = append(errs, fmt.Errorf("config: %s: %w", f, err))
			}
		} else if !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, fmt.Errorf("config: read %s: %w", f, err))
		}
	}
	data, err := os.ReadFile(filepath.Join(root, FileName))
	if errors.Is(err, fs.ErrNotExist) {
		return c, errors.Join(errs...)
	}
	if err != nil {
		return c, errors.Join(append(errs, fmt.Errorf("config: read %s: %w", FileName, err))...)
	}
	if err := c.mergeRepo(data); err != nil {
		errs = append(errs, fmt.Errorf("config: %s: %w", FileName, err))
	}
	return c, errors.Join(errs...)
}

// mergeRepo overlays a repository's .sightline.json: every key but policy,
// whose deny and sensitive globs are added to RepoPolicy (allow is ignored).
func (c *Config) mergeRepo(data []byte) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return fmt.Errorf("invalid settings: %w", err)
	}
	var pol Policy
	if p, ok := raw["policy"]; ok {
		if err := json.Unmarshal(p, &pol); err != nil {
			return fmt.Errorf("invalid policy: %w", err)
		}
		if err := policy.Validate(append(append([]string(nil), pol.Deny...), pol.Sensitive...)); err != nil {
			return err
		}
		delete(raw, "policy")
	}
	rest, err := json.Marshal(raw)
	if err != nil {
		return err
	}
	if err := c.Merge(rest); err != nil {
		return err
	}
	c.RepoPolicy.Deny = append(c.RepoPolicy.Deny, pol.Deny...)
	c.RepoPolicy.Sensitive = append(c.RepoPolicy.Sensitive, pol.Sensitive...)
	return nil
}

// Merge overlays the keys present in a JSON object onto c (absent keys keep
// their value; nested objects merge key by key) and validates the result.
func (c *Config) Merge(data []byte) error {
	if len(data) == 0 || string(data) == "null" {
		return nil
	}
	next := *c
	if err := json.Unmarshal(data, &next); err != nil {
		return fmt.Errorf("invalid settings: %w", err)
	}
	if err := next.Validate(); err != nil {
		return err
	}
	*c = next
	return nil
}

// Validate checks enumerations and bounds.
func (c Config) Validate() error {
	switch c.Guard {
	case "enforce", "warn", "off":
	default:
		return fmt.Errorf("guard must be enforce, warn or off, not %q", c.Guard)
	}
	switch c.Extract {
	case "regex", "treesitter":
	default:
		return fmt.Errorf("extract must be regex or treesitter, not %q", c.Extract)
	}
	switch c.ApplyVia {
	case "auto", "client", "disk":
	default:
		return fmt.Errorf("applyVia must be auto, client or disk, not %q", c.ApplyVia)
	}
	if c.ApplyTimeoutMs < 50 || c.ApplyTimeoutMs > 600000 {
		return fmt.Errorf("applyTimeoutMs must be between 50 and 600000, not %d", c.ApplyTimeoutMs)
	}
	if c.ReadBudget < 200 {
		return fmt.Errorf("readBudget must be at least 200 characters, not %d", c.ReadBudget)
	}
	if c.Session == "" {
		return errors.New("session must not be empty")
	}
	for _, g := range [][]string{c.Policy.Allow, c.Policy.Deny, c.Policy.Sensitive} {
		if err := policy.Validate(g); err != nil {
			return err
		}
	}
	if c.Audit.MaxEntries < 0 || c.Audit.MaxAgeDays < 0 {
		return errors.New("audit.maxEntries and audit.maxAgeDays must not be negative")
	}
	if c.History.MaxBytes < 0 {
		return errors.New("history.maxBytes must not be negative")
	}
	for _, n := range c.Encodings {
		if _, err := charset.Lookup(n); err != nil {
			return fmt.Errorf("encodings: %w", err)
		}
	}
	return nil
}
