package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// RootFile, in a state folder, names the workspace root it is the state
// of (Dir writes it): the folder's name keeps only a hash of the root, and
// `sightline state list` must say whose state it is and whether that
// workspace still exists.
const RootFile = "root"

// recordRoot writes dir's RootFile when it is missing: once per state
// folder, so that a call pays one stat.
func recordRoot(dir, root string) {
	p := filepath.Join(dir, RootFile)
	if _, err := os.Lstat(p); err == nil {
		return
	}
	tmp := p + ".tmp"
	if err := os.WriteFile(tmp, []byte(root+"\n"), 0o600); err != nil {
		return // the listing then finds the root in the database, if anywhere
	}
	_ = os.Rename(tmp, p)
}

// Home is the folder holding every workspace's state folder:
// <state>/sightline (see Dir).
func Home() (string, error) {
	base, err := stateBase()
	if err != nil {
		return "", err
	}
	return filepath.Join(base, "sightline"), nil
}

// State is one workspace's state folder, as `sightline state list` shows it.
type State struct {
	// Dir is the state folder.
	Dir string `json:"dir"`
	// Root is the workspace root whose state it is; "" when neither the
	// folder's RootFile nor its database tells it.
	Root string `json:"root"`
	// RootExists: the root is a folder that exists.
	RootExists bool `json:"rootExists"`
	// Size is the bytes of the folder's files.
	Size int64 `json:"size"`
	// LastUsed is the latest change of any of its files (the database's
	// at every call that records something).
	LastUsed time.Time `json:"lastUsed"`
}

// States lists the state folders under Home, by folder name.
func States(ctx context.Context) ([]State, error) {
	home, err := Home()
	if err != nil {
		return nil, err
	}
	ents, err := os.ReadDir(home)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("store: state folders: %w", err)
	}
	var out []State
	for _, e := range ents {
		if !e.IsDir() || e.Name() == "locks" {
			continue // the locks are every workspace's (LockDir)
		}
		out = append(out, ReadState(ctx, filepath.Join(home, e.Name())))
	}
	return out, nil
}

// ReadState describes one state folder.
func ReadState(ctx context.Context, dir string) State {
	s := State{Dir: dir}
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		// Files only: a folder's time changes when a listing makes its
		// socket folder, which is no use of the workspace.
		if fi, err := d.Info(); err == nil && fi.Mode().IsRegular() {
			s.Size += fi.Size()
			if fi.ModTime().After(s.LastUsed) {
				s.LastUsed = fi.ModTime()
			}
		}
		return nil
	})
	if b, err := os.ReadFile(filepath.Join(dir, RootFile)); err == nil {
		s.Root = strings.TrimSuffix(string(b), "\n")
	} else {
		s.Root = rootFromDB(ctx, dir)
	}
	if s.Root != "" {
		fi, err := os.Stat(s.Root)
		s.RootExists = err == nil && fi.IsDir()
	}
	return s
}

// rootFromDB finds the root of a state folder made before RootFile was
// written: the folder whose name and hash the state folder's name carries
// (see Dir) among the folders above the documents its database names.
func rootFromDB(ctx context.Context, dir string) string {
	name := filepath.Base(dir)
	i := strings.LastIndexByte(name, '-')
	if i < 0 {
		return ""
	}
	base, sum := name[:i], name[i+1:]
	db := filepath.Join(dir, FileName)
	if _, err := os.Stat(db); err != nil {
		return ""
	}
	sdb, err := sql.Open("sqlite", "file:"+(&url.URL{Path: db}).EscapedPath()+"?mode=ro&_pragma=busy_timeout(200)")
	if err != nil {
		return ""
	}
	defer sdb.Close()
	rows, err := sdb.QueryContext(ctx, `SELECT doc FROM ledger_entries UNION SELECT doc FROM file_stats LIMIT 20`)
	if err != nil {
		return ""
	}
	defer rows.Close()
	for rows.Next() {
		var doc string
		if rows.Scan(&doc) != nil {
			continue
		}
		u, err := url.Parse(doc)
		if err != nil || u.Scheme != "file" {
			continue
		}
		path := u.Path
		if len(path) > 2 && path[0] == '/' && path[2] == ':' {
			path = path[1:] // file:///C:/x on Windows
		}
		for p := filepath.Dir(filepath.FromSlash(path)); ; p = filepath.Dir(p) {
			h := sha256.Sum256([]byte(p))
			if folderName(filepath.Base(p)) == base && hex.EncodeToString(h[:])[:12] == sum {
				return p
			}
			if filepath.Dir(p) == p {
				break
			}
		}
	}
	return ""
}
