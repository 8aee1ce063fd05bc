// Package config holds sightline's settings (PROTOCOL section 10): defaults,
// the workspace's .sightline.json, and the editor's settings layered on top.
package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/sightline-lsp/sightline/charset"
	"github.com/sightline-lsp/sightline/extract"
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
	// Problems are what was wrong with the layers, each said in every
	// answer while it lasts (a key refused, a key unknown, a policy that
	// cannot be read).
	Problems []Problem `json:"-"`
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
// may read. Each valid key of a file is applied and each invalid one
// recorded in Problems (its value kept from the layers below); a file or
// policy that cannot be read is a problem of the policy, which closes the
// workspace (Closed) rather than drop the rules it held.
func Load(root string) Config {
	c := Default()
	if f := UserFile(); f != "" {
		if data, ok := c.readFile(f, false); ok {
			c.applyFile(f, data, userLayer)
		}
	}
	f := filepath.Join(root, FileName)
	if data, ok := c.readFile(f, true); ok {
		c.applyFile(f, data, repoLayer)
	}
	c.sortProblems()
	return c
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
		if err := extract.Available(c.Extract); err != nil {
			return err
		}
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
