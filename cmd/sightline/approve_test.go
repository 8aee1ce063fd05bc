package main

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/sightline-lsp/sightline/engine"
)

// TestApprovalQuestionIsBounded: a question on the terminal that nobody
// answers is refused after the bound, saying so, instead of waiting forever.
func TestApprovalQuestionIsBounded(t *testing.T) {
	r, w := io.Pipe() // a terminal nobody types on
	defer w.Close()
	var stderr bytes.Buffer
	a := cliApprover{stderr: &stderr, wait: 200 * time.Millisecond, tty: func() (io.ReadCloser, error) { return r, nil }}
	start := time.Now()
	d, err := a.Approve(context.Background(), engine.Approval{Path: ".env", Rule: "sensitive: .env", Op: "read"})
	if took := time.Since(start); took > 2*time.Second {
		t.Fatalf("the question waited %v", took)
	}
	if d != engine.Deny || err == nil || !strings.Contains(err.Error(), "--yes") || !strings.Contains(stderr.String(), "no answer within") {
		t.Fatalf("unanswered question: %v %v, stderr %q", d, err, stderr.String())
	}
}
