package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/mattn/go-isatty"

	"github.com/sightline-lsp/sightline/engine"
)

// approvalFlag adds --yes to a command that reads or writes files.
func approvalFlag(fs *flag.FlagSet) *bool {
	return fs.Bool("yes", false, "approve access to sensitive paths for this call")
}

// cliApprover approves sensitive paths on the command line: --yes approves
// them for this call; otherwise, when standard input is a terminal, the user
// is asked there (on /dev/tty, so input piped into the command is left
// alone). Without either, there is no approver: the call is refused with
// approval_refused.
type cliApprover struct {
	stderr io.Writer
	yes    bool
	// wait bounds a question: nobody answering is a refusal, not a command
	// that never ends (an agent running it cannot answer).
	wait time.Duration
	// tty opens where the answer is typed.
	tty func() (io.ReadCloser, error)
}

// approvalWait is how long a question on the terminal waits for its answer.
const approvalWait = 60 * time.Second

func newApprover(yes *bool, stdin io.Reader, stderr io.Writer) engine.Approver {
	if yes != nil && *yes {
		return cliApprover{stderr: stderr, yes: true}
	}
	if isTTY(stdin) {
		return cliApprover{stderr: stderr, wait: approvalWait, tty: openTTY}
	}
	return nil
}

func openTTY() (io.ReadCloser, error) { return os.Open("/dev/tty") }

// isTTY reports whether r is a terminal: not any character device
// (/dev/null is one, and nobody answers there).
func isTTY(r io.Reader) bool {
	f, ok := r.(*os.File)
	return ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()))
}

func (a cliApprover) Approve(ctx context.Context, req engine.Approval) (engine.Decision, error) {
	if a.yes {
		return engine.AllowOnce, nil
	}
	tty, err := a.tty()
	if err != nil {
		return engine.Deny, fmt.Errorf("there is no terminal to ask on (%v); pass --yes to approve this one call", err)
	}
	defer tty.Close()
	if req.Op == "merge" {
		fmt.Fprintf(a.stderr, "sightline: the patch no longer applies to %s; a three-way merge with the current text is clean:\n%sApply this merge? [y/N]: ", req.Path, req.Detail)
	} else {
		fmt.Fprintf(a.stderr, "sightline: %s is sensitive (%s). Allow this %s? [o]nce / [s]ession / [N]o: ", req.Path, req.Rule, req.Op)
	}
	answer := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(tty).ReadString('\n')
		answer <- strings.ToLower(strings.TrimSpace(line))
	}()
	timer := time.NewTimer(a.wait)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return engine.Deny, errors.New("interrupted")
	case <-timer.C:
		fmt.Fprintf(a.stderr, "\nsightline: no answer within %v: refused.\n", a.wait)
		return engine.Deny, fmt.Errorf("nobody answered on the terminal within %v (run the command again and answer, or pass --yes to approve this one call)", a.wait)
	case a := <-answer:
		switch a {
		case "o", "once", "y", "yes":
			return engine.AllowOnce, nil
		case "s", "session":
			if req.Op == "merge" {
				return engine.Deny, nil
			}
			return engine.AllowSession, nil
		}
		return engine.Deny, nil
	}
}
