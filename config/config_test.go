package config

import (
	"os"
	"path/filepath"
	"testing"
)

func TestLoadAndMerge(t *testing.T) {
	dir := t.TempDir()
	c, err := Load(dir)
	if err != nil || c.ReadBudget != 24000 || c.Guard != "enforce" || !c.Diagnostics.Unread {
		t.Fatalf("defaults: %+v, %v", c, err)
	}
	os.WriteFile(filepath.Join(dir, FileName), []byte(`{"readBudget": 5000, "diagnostics": {"unread": false}}`), 0o644)
	c, err = Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if c.ReadBudget != 5000 || c.Diagnostics.Unread || !c.Diagnostics.Stale || c.Guard != "enforce" {
		t.Errorf("merged: %+v", c)
	}
	if err := c.Merge([]byte(`{"guard": "sometimes"}`)); err == nil {
		t.Error("invalid guard accepted")
	}
	if c.Guard != "enforce" {
		t.Error("failed merge changed the config")
	}
	os.WriteFile(filepath.Join(dir, FileName), []byte(`{"readBudget": `), 0o644)
	if _, err := Load(dir); err == nil {
		t.Error("malformed file accepted")
	}
}
