package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func load(t *testing.T, file string) Config {
	t.Helper()
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, FileName), []byte(file), 0o644); err != nil {
		t.Fatal(err)
	}
	return Load(dir)
}

func problems(c Config) string {
	var b []string
	for _, p := range c.Problems {
		b = append(b, p.String())
	}
	return strings.Join(b, "\n")
}

func TestLoadAndMerge(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	dir := t.TempDir()
	c := Load(dir)
	if len(c.Problems) > 0 || c.ReadBudget != 24000 || c.Guard != "enforce" || !c.Diagnostics.Unread {
		t.Fatalf("defaults: %+v", c)
	}
	c = load(t, `{"readBudget": 5000, "diagnostics": {"unread": false}}`)
	if len(c.Problems) > 0 || c.ReadBudget != 5000 || c.Diagnostics.Unread || !c.Diagnostics.Stale || c.Guard != "enforce" {
		t.Errorf("merged: %+v", c)
	}
}

// Every valid key applies and each invalid one is refused by name, its
// value kept; the policy beside it holds.
func TestLoadKeepsValidKeys(t *testing.T) {
	c := load(t, `{"policy":{"deny":["lib/**"]},"readBudget":"24k","guard":"warn","diagnostics":{"unread":"no","stale":false},"gaurd":"off"}`)
	if _, closed := c.Closed(); closed {
		t.Fatalf("closed: %s", problems(c))
	}
	if len(c.RepoPolicy.Deny) != 1 || c.ReadBudget != 24000 || c.Guard != "warn" || !c.Diagnostics.Unread || c.Diagnostics.Stale {
		t.Fatalf("applied: %+v", c)
	}
	got := problems(c)
	for _, want := range []string{`"readBudget" must be a whole number`, `not the string "24k"`, `"diagnostics.unread" must be true or false`, `unknown key "gaurd" (did you mean "guard"?)`} {
		if !strings.Contains(got, want) {
			t.Errorf("problems lack %q:\n%s", want, got)
		}
	}
	if c = load(t, `{"readBudget": 100, "applyVia": "client"}`); c.ReadBudget != 24000 || c.ApplyVia != "client" || !strings.Contains(problems(c), "at least 200") {
		t.Errorf("an invalid value: %+v %s", c, problems(c))
	}
}

// What keeps the policy from being read closes the workspace.
func TestLoadPolicyUnreadable(t *testing.T) {
	for _, file := range []string{
		`null`, `[]`, `"x"`, `{"policy": 1}`, `{"policy": {"deny": "lib/**"}}`, `{"policy": {"deny": ["a", 1]}}`,
		`{"policy": {"deny": ["[x"]}}`, `{"policy": {"denny": []}}`, `{"Policy": {"deny": ["a"]}}`, `{"deny": ["a"]}`,
		`{"policy": {}, "policy": {}}`, `{"policy": {"deny": [], "deny": ["a"]}}`, `{"guard": "warn",}`, `{"guard": "warn"} {}`,
		"{\"guard\": \"\xff\"}", `{"guard": "warn"`, `// comment` + "\n{}",
	} {
		c := load(t, file)
		p, closed := c.Closed()
		if !closed || !strings.Contains(p.String(), FileName) {
			t.Errorf("%s: not closed: %s", file, problems(c))
		}
	}
	// Empty, or null members: nothing set, nothing wrong.
	for _, file := range []string{"", " \n", `{}`, `{"policy": null, "readBudget": null}`, `{"policy": {"deny": null}}`, "\xef\xbb\xbf{}"} {
		if c := load(t, file); len(c.Problems) > 0 {
			t.Errorf("%q: %s", file, problems(c))
		}
	}
	c := load(t, `{"policy": {"deny": ["lib/**"]}, "guard": "warn",}`)
	if p, _ := c.Closed(); !strings.Contains(p.What, "line 1, column") {
		t.Errorf("a syntax error without its place: %s", p)
	}
}

// The repository's file adds deny and sensitive globs; its allow is said
// to do nothing.
func TestLoadRepoPolicyAdds(t *testing.T) {
	c := load(t, `{"policy": {"allow": ["src/**"], "deny": ["a/**"], "sensitive": ["*.db"]}}`)
	if _, closed := c.Closed(); closed || len(c.Policy.Allow) != 1 || c.Policy.Allow[0] != "**" || c.RepoPolicy.Deny[0] != "a/**" || c.RepoPolicy.Sensitive[0] != "*.db" {
		t.Fatalf("%+v %s", c, problems(c))
	}
	if !strings.Contains(problems(c), `"policy.allow" has no effect`) {
		t.Errorf("allow ignored silently: %s", problems(c))
	}
}

// The user's file sets the policy; one that cannot be read closes too.
func TestLoadUserFile(t *testing.T) {
	home := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", home)
	os.MkdirAll(filepath.Join(home, "sightline"), 0o700)
	os.WriteFile(filepath.Join(home, "sightline", "config.json"), []byte(`{"policy": {"deny": ["x/**"]}, "guard": 3}`), 0o600)
	c := Load(t.TempDir())
	if _, closed := c.Closed(); closed || len(c.Policy.Deny) != 1 || c.Guard != "enforce" || !strings.Contains(problems(c), `"guard" must be`) {
		t.Fatalf("%+v %s", c, problems(c))
	}
	os.Remove(filepath.Join(home, "sightline", "config.json"))
	os.Mkdir(filepath.Join(home, "sightline", "config.json"), 0o700)
	if _, closed := Load(t.TempDir()).Closed(); !closed {
		t.Fatal("a folder for the user's file did not close the policy")
	}
}

// The editor's settings: bare or nested, each key on its own, its policy
// whole or closed.
func TestApplyEditor(t *testing.T) {
	c := Default()
	c.ApplyEditor("initializationOptions", []byte(`{"sightline": {"guard": "off", "readBudget": true}}`))
	if c.Guard != "off" || c.ReadBudget != 24000 || !strings.Contains(problems(c), "initializationOptions") {
		t.Fatalf("%+v %s", c, problems(c))
	}
	for _, raw := range []string{`null`, `[]`, `{}`, `{"sightline": null}`, `{"sightline": {}}`} {
		c := Default()
		if c.ApplyEditor("s", []byte(raw)); len(c.Problems) > 0 {
			t.Errorf("%s: %s", raw, problems(c))
		}
	}
	c = Default()
	c.ApplyEditor("s", []byte(`{"policy": {"deny": "x"}}`))
	if _, closed := c.Closed(); !closed {
		t.Fatal("an editor's unreadable policy did not close")
	}
}

func TestDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		d    int
	}{{"gaurd", "guard", 1}, {"guard", "guard", 0}, {"readbudget", "readBudget", 1}, {"", "abc", 3}} {
		if d := distance(tc.a, tc.b); d != tc.d {
			t.Errorf("distance(%q, %q) = %d, want %d", tc.a, tc.b, d, tc.d)
		}
	}
}
