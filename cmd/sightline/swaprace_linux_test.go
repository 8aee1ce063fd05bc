package main

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sightline-lsp/sightline/internal/swaptest"
)

// TestFolderSwapRace: a local process swaps a folder for a symbolic link to
// .git (or to a denied folder) in a loop while the real binary reads,
// overwrites and creates files under that folder. Nothing is ever written
// into .git, nothing denied is ever shown, every write answered ok is in
// the folder named, and every refusal wrote nothing.
func TestFolderSwapRace(t *testing.T) {
	t.Parallel() // mostly waiting on processes and bounds: beside the other long ones
	if testing.Short() {
		t.Skip("races the real binary for several seconds")
	}
	const secret = "SECRET-PLAN-MARKER\n"
	c := newCLI(t, map[string]string{
		".git/config":       swaptest.GitConfig,
		".git/hooks/sample": "#!/bin/sh\n",
		"e/config":          "start\n",
		"d/hooks/keep":      "keep\n",
		"secrets/plan.txt":  secret,
		"s/plan.txt":        "public plan\n",
		"private/plan.txt":  "PRIVATE-PLAN-MARKER\n",
		"p/plan.txt":        "public plan\n",
		"r/config":          "start\n",
		".sightline.json":   `{"guard":"off","policy":{"deny":["secrets/**"],"sensitive":["private/**"]}}`,
	})
	ws := c.dir
	for link, dest := range map[string]string{"elink": ".git", "dlink": ".git", "slink": "secrets", "plink": "private", "rlink": ".git"} {
		if err := os.Symlink(dest, filepath.Join(ws, link)); err != nil {
			t.Fatal(err)
		}
	}
	openDir := func(name string) *os.File {
		f, err := os.Open(filepath.Join(ws, name))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}
	answer := func(stdin string, args ...string) (ok bool, out string) {
		out, _, _ = c.run(stdin, append(args, "--json")...)
		var r struct {
			OK bool `json:"ok"`
		}
		json.Unmarshal([]byte(out), &r)
		return r.OK, out
	}
	// landed checks one write's answer against the folder it named, reached
	// by that folder's own descriptor: .git untouched; answered ok, name
	// holds want; refused, name is as it was (was; absent when !existed).
	landed := func(dir *os.File, name string, ok bool, out, want, was string, existed bool) (string, error) {
		got, exists := swaptest.ReadAt(dir, name)
		if err := swaptest.GitUnchanged(ws); err != nil {
			return got, fmt.Errorf("%v (answer %s)", err, out)
		}
		switch {
		case ok && got != want:
			return got, fmt.Errorf("answered ok, but %s holds %q, not %q (answer %s)", name, got, want, out)
		case !ok && (exists != existed || got != was):
			return got, fmt.Errorf("refused, but %s changed to %q (answer %s)", name, got, out)
		}
		return got, nil
	}
	race := func(t *testing.T, folder, link string, try func(i int) error) {
		stop := swaptest.Start(t, ws, folder, link)
		most, budget := swaptest.Budget(t, 1500, 3*time.Second)
		deadline := time.Now().Add(budget)
		tries, escapes := 0, 0
		for i := 0; i < most && time.Now().Before(deadline); i++ {
			tries++
			if err := try(i); err != nil {
				escapes++
				if escapes <= 5 {
					t.Errorf("try %d: %v", i, err)
				}
			}
		}
		swaps := stop()
		t.Logf("%d tries, %d escapes (%d swaps)", tries, escapes, swaps)
		if escapes > 0 {
			t.Errorf("%d escapes in %d tries", escapes, tries)
		}
	}

	t.Run("overwrite", func(t *testing.T) {
		e := openDir("e")
		last := "start\n"
		race(t, "e", "elink", func(i int) error {
			text := fmt.Sprintf("write %d\n", i)
			ok, out := answer(text, "write", "e/config", "--mode", "overwrite")
			got, err := landed(e, "config", ok, out, text, last, true)
			if err == nil {
				last = got
			}
			return err
		})
	})
	t.Run("read", func(t *testing.T) {
		race(t, "e", "elink", func(i int) error {
			if _, out := answer("", "read", "e/config"); strings.Contains(out, "GIT-CONFIG-MARKER") {
				return fmt.Errorf("read .git/config: %s", out)
			}
			return nil
		})
	})
	t.Run("create", func(t *testing.T) {
		d := openDir("d")
		race(t, "d", "dlink", func(i int) error {
			name := fmt.Sprintf("x%d", i)
			text := fmt.Sprintf("create %d\n", i)
			ok, out := answer(text, "write", "d/hooks/"+name, "--mode", "create")
			_, err := landed(d, "hooks/"+name, ok, out, text, "", false)
			return err
		})
	})
	t.Run("patch create", func(t *testing.T) {
		// The multi-file write transaction stages and places through the
		// same descriptors.
		d := openDir("d")
		race(t, "d", "dlink", func(i int) error {
			name := fmt.Sprintf("p%d", i)
			text := fmt.Sprintf("patched %d\n", i)
			patch := "*** Begin Patch\n*** Add File: d/hooks/" + name + "\n+" + strings.TrimSuffix(text, "\n") + "\n*** End Patch\n"
			ok, out := answer(patch, "patch")
			_, err := landed(d, "hooks/"+name, ok, out, text, "", false)
			return err
		})
	})
	t.Run("rollback", func(t *testing.T) {
		// Two kept versions of r/config, made before the race; the race
		// rolls back to one, then the other.
		texts := []string{"one\n", "two\n"}
		for _, text := range texts {
			if ok, out := answer(text, "write", "r/config", "--mode", "overwrite"); !ok {
				t.Fatalf("write r/config: %s", out)
			}
		}
		_, hist := answer("", "history", "r/config")
		var h struct {
			Versions []struct {
				ID       int64  `json:"id"`
				FileHash string `json:"fileHash"`
			} `json:"versions"`
		}
		json.Unmarshal([]byte(hist), &h)
		ids := make([]string, len(texts))
		for i, text := range texts {
			want := fmt.Sprintf("sha256:%x", sha256.Sum256([]byte(text)))
			for _, v := range h.Versions {
				if v.FileHash == want {
					ids[i] = fmt.Sprint(v.ID)
				}
			}
			if ids[i] == "" {
				t.Fatalf("no kept version of %q in %s", text, hist)
			}
		}
		r := openDir("r")
		last := texts[1]
		applied := 0
		defer func() { t.Logf("%d rollbacks applied", applied) }()
		race(t, "r", "rlink", func(i int) error {
			want := texts[i%2]
			ok, out := answer("", "rollback", "r/config", ids[i%2])
			if ok {
				applied++
			}
			got, err := landed(r, "config", ok, out, want, last, true)
			if err == nil {
				last = got
			}
			return err
		})
	})
	t.Run("denied read", func(t *testing.T) {
		race(t, "s", "slink", func(i int) error {
			if _, out := answer("", "read", "s/plan.txt"); strings.Contains(out, "SECRET-PLAN-MARKER") {
				return fmt.Errorf("read a denied file: %s", out)
			}
			return nil
		})
	})
	t.Run("sensitive read", func(t *testing.T) {
		// Nobody approves here: a sensitive file must never be shown.
		race(t, "p", "plink", func(i int) error {
			if _, out := answer("", "read", "p/plan.txt"); strings.Contains(out, "PRIVATE-PLAN-MARKER") {
				return fmt.Errorf("read a sensitive file without approval: %s", out)
			}
			return nil
		})
	})
}
