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
	Policy         Policy      `json:"policy"`
	// Session is the session whose ledger this editor shows (diagnostics,
	// coverage, lens, hover). Editor setting only.
	Session string `json:"session"`
}

// Diagnostics says which ranges the editor is shown.
type Diagnostics struct {
	Unread bool `json:"unread"`
	Stale  bool `json:"stale"`
}

// Policy is the path policy (globs relative to the workspace root).
type Policy struct {
	Allow     []string `json:"allow"`
	Deny      []string `json:"deny"`
	Sensitive []string `json:"sensitive"`
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
			Sensitive: []string{".env", ".env.*", "**/*.pem", "**/id_*"},
		},
		Session: "default",
	}
}

// Load returns the defaults overlaid with root/.sightline.json when present.
func Load(root string) (Config, error) {
	c := Default()
	data, err := os.ReadFile(filepath.Join(root, FileName))
	if errors.Is(err, fs.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return c, fmt.Errorf("config: read %s: %w", FileName, err)
	}
	if err := c.Merge(data); err != nil {
		return c, fmt.Errorf("config: %s: %w", FileName, err)
	}
	return c, nil
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
	return nil
}
