// Package bridge is the local socket through which the CLI and `sightline
// mcp` hand their calls to a running language server of the same workspace,
// so that a terminal agent's reads and edits meet the editor's buffers and
// ledger. Each server listens on its own unix socket in a folder of the
// workspace's state folder; the protocol is JSON-RPC 2.0, one message per
// line (newline-delimited JSON), carrying the operations' sightline/*
// methods plus the bridge's own sightline/bridge/* methods. Its invariant:
// it moves messages and knows no operation (it imports neither the table
// nor the engine).
package bridge

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// Methods of the bridge itself, beside the operations' sightline/* methods
// (which it carries without knowing them).
const (
	// MethodStatus answers Status: who the server is and which documents
	// its editor has open, so a caller can pick among several servers.
	MethodStatus = "sightline/bridge/status"
	// MethodPing answers at once, whatever the server is doing: the
	// caller's probe that the server is not stopped or wedged.
	MethodPing = "sightline/bridge/ping"
	// MethodHello is a caller's first message to a daemon (HelloParams): the
	// daemon answers whether it serves that caller (the same build, root,
	// user configuration and confinement, the last read from the kernel
	// for the process that connected), and remembers whether the caller
	// can answer approval requests. Sent as a notification (no answer
	// awaited), the daemon refuses the connection's calls with
	// CodeNotServed when it does not serve the caller. Before a hello it
	// accepts, a daemon answers nothing but pings, status and exit.
	MethodHello = "sightline/bridge/hello"
	// MethodExit asks a daemon to exit: it stops accepting, writes its
	// ledger to the database, and answers when it no longer holds it.
	MethodExit = "sightline/bridge/exit"
	// MethodApprove is a daemon's request to its caller (engine.Approval's
	// fields): the caller's approver (--yes, its terminal) decides, as it
	// would for the call run in its own process.
	MethodApprove = "sightline/bridge/approve"
	// MethodProgress is a daemon's notification to its caller while a long
	// call runs (ProgressParams): how far it has come, for the caller to
	// show on its terminal.
	MethodProgress = "sightline/bridge/progress"
	// methodFrames is a caller's first message, a notification: it reads
	// messages framed with Content-Length headers, so the server may answer
	// in them (a large answer is then read into one buffer of its length),
	// and with framesParams.Attachments, answers with attachments (see
	// stream). A server that does not know it ignores it and writes lines.
	methodFrames = "sightline/bridge/frames"
)

// framesParams are methodFrames' params (none from a caller of an earlier
// build).
type framesParams struct {
	Attachments bool `json:"attachments,omitempty"`
}

// ProgressParams are MethodProgress' params: done of total units (files
// hashed, of those to hash).
type ProgressParams struct {
	Done  int `json:"done"`
	Total int `json:"total"`
}

// CodeNotServed is a daemon's refusal of a call on a connection whose hello
// it does not serve (another build, root, configuration or confinement), or
// that sent none (then the daemon hangs up): the caller runs the call
// itself. The call was not run.
const CodeNotServed = -32001

// HelloParams identify a daemon's caller.
type HelloParams struct {
	Build string `json:"build"`
	Root  string `json:"root"`
	// Config names the user's configuration file the caller reads.
	Config string `json:"config"`
	// Approves: the caller answers approval requests (MethodApprove).
	Approves bool `json:"approves"`
	// Confinement names what confines the caller's process (a sandbox's
	// namespaces and filters; see Confinement). The daemon reads it from
	// the kernel too: a hello naming another is refused and hung up on.
	Confinement string `json:"confinement,omitempty"`
}

// Hello is a daemon's answer to MethodHello.
type Hello struct {
	PID int `json:"pid"`
	// Serves: the daemon is of the caller's build, root, configuration and
	// confinement;
	// otherwise Why says how it differs, and the caller does not use it.
	Serves bool   `json:"serves"`
	Why    string `json:"why,omitempty"`
}

// daemonSuffix ends the socket name of a workspace's daemon, the headless
// server the CLI starts on demand: <pid>-daemon.sock.
const daemonSuffix = "-daemon.sock"

// IsDaemon reports whether a socket is a daemon's, not an editor's server.
func IsDaemon(path string) bool { return strings.HasSuffix(filepath.Base(path), daemonSuffix) }

// Status is the answer of sightline/bridge/status.
type Status struct {
	PID     int      `json:"pid"`
	Version string   `json:"version"`
	Roots   []string `json:"roots"`
	// Open lists the URIs of the documents open in the editor.
	Open []string `json:"open"`
	// Daemon: a headless server the CLI started, with no editor.
	Daemon bool `json:"daemon,omitempty"`
	// A daemon's: its build (what a caller must match to be served), when
	// it started (RFC 3339), its resident memory in bytes, its state
	// folder and its log file (`sightline daemon status` and `list`).
	Build    string `json:"build,omitempty"`
	Started  string `json:"started,omitempty"`
	Memory   int64  `json:"memory,omitempty"`
	StateDir string `json:"stateDir,omitempty"`
	Log      string `json:"log,omitempty"`
}

// maxSocketPath bounds a socket's path: sockaddr_un holds 108 bytes on
// Linux and 104 on macOS, with the terminating NUL.
const maxSocketPath = 100

// longestName is the longest socket name Listen makes: "<pid>-<n>.sock"
// with a 7-digit pid (Linux's pid_max is at most 4194304) and n < 100.
const longestName = len("4194304-99.sock")

// Dir returns the folder holding the sockets of the servers whose state
// folder is stateDir, creating it (0700): <stateDir>/bridge. When that path
// is too long for a socket, it is a short folder named by a hash of
// stateDir under $XDG_RUNTIME_DIR/sightline, else /tmp/sightline-<uid>,
// owner-only and checked to be ours.
func Dir(stateDir string) (string, error) {
	abs, err := filepath.Abs(stateDir)
	if err != nil {
		return "", fmt.Errorf("bridge: state folder %s: %w", stateDir, err)
	}
	dir := filepath.Join(abs, "bridge")
	if len(dir)+1+longestName > maxSocketPath {
		sum := sha256.Sum256([]byte(abs))
		name := hex.EncodeToString(sum[:8])
		dir = ""
		for _, base := range shortBases() {
			if d := filepath.Join(base, name); len(d)+1+longestName <= maxSocketPath {
				if err := ownedDir(base); err != nil {
					continue
				}
				dir = d
				break
			}
		}
		if dir == "" {
			return "", fmt.Errorf("bridge: no folder short enough for a socket (state folder %s)", abs)
		}
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("bridge: create socket folder: %w", err)
	}
	if err := ownedDir(dir); err != nil {
		return "", err
	}
	return dir, nil
}

// shortBases are the folders a short socket folder may live in, best first.
func shortBases() []string {
	var out []string
	if r := os.Getenv("XDG_RUNTIME_DIR"); filepath.IsAbs(r) {
		out = append(out, filepath.Join(r, "sightline"))
	}
	return append(out, sharedBase())
}

// ownedDir makes dir if needed and checks that it is a real folder of ours
// that nobody else can enter (ownerOnly): in a shared temporary folder
// another user could have made it first, to catch the sockets.
func ownedDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("bridge: create %s: %w", dir, err)
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("bridge: %w", err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("bridge: %s is not a folder", dir)
	}
	return ownerOnly(dir, fi)
}

// Sockets lists the socket files in dir, oldest name first. Whether one is
// alive only a dial tells.
func Sockets(dir string) []string {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".sock") && e.Type()&os.ModeSocket != 0 {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	sort.Strings(out)
	return out
}

// probe dials a socket and hangs up: nil when a server listens there.
func probe(path string) error {
	c, err := (&net.Dialer{Timeout: 200 * time.Millisecond}).DialContext(context.Background(), "unix", path)
	if err != nil {
		return err
	}
	return c.Close()
}

// RemoveStale removes the sockets in dir nobody listens on (a server that
// was killed cannot remove its own) and returns how many it removed.
func RemoveStale(dir string) int {
	n := 0
	for _, p := range Sockets(dir) {
		if refused(probe(p)) && os.Remove(p) == nil {
			n++
		}
	}
	return n
}
