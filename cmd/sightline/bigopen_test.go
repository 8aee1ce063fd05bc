package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/uri"
)

// lspFrames is `sightline serve` driven by raw frames: a message of tens of
// megabytes is written as built, not through an encoder.
type lspFrames struct {
	t   *testing.T
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
}

func (l *lspFrames) send(body string) {
	l.t.Helper()
	if _, err := fmt.Fprintf(l.in, "Content-Length: %d\r\n\r\n%s", len(body), body); err != nil {
		l.t.Fatal(err)
	}
}

// answer reads messages until the one answering id.
func (l *lspFrames) answer(id int) json.RawMessage {
	l.t.Helper()
	for {
		n := 0
		for {
			line, err := l.out.ReadString('\n')
			if err != nil {
				l.t.Fatalf("server output ended: %v", err)
			}
			line = strings.TrimSpace(line)
			if line == "" {
				break
			}
			if v, ok := strings.CutPrefix(line, "Content-Length: "); ok {
				n, _ = strconv.Atoi(v)
			}
		}
		body := make([]byte, n)
		if _, err := io.ReadFull(l.out, body); err != nil {
			l.t.Fatal(err)
		}
		var m struct {
			ID     *int            `json:"id"`
			Result json.RawMessage `json:"result"`
		}
		json.Unmarshal(body, &m)
		if m.ID != nil && *m.ID == id {
			return m.Result
		}
	}
}

// TestDidOpenOverTheLimit: a document the editor opens that is over the
// file limit (64 MiB) is not kept: the server's memory stays bounded, a read
// says why it has no text, and a write is refused rather than written to a
// disk the editor's buffer shadows.
func TestDidOpenOverTheLimit(t *testing.T) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("needs /proc")
	}
	if testing.Short() {
		t.Skip("sends 66 MiB")
	}
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "big.txt"), []byte("small on disk\n"), 0o644)
	cmd := exec.Command(buildBinary(t), "serve", "--state-dir", t.TempDir())
	cmd.Dir = root
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	l := &lspFrames{t: t, cmd: cmd, in: in, out: bufio.NewReader(out)}
	l.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":null,"rootUri":%q,"capabilities":{}}}`, uri.File(root)))
	l.answer(1)
	l.send(`{"jsonrpc":"2.0","method":"initialized","params":{}}`)

	u := string(uri.File(filepath.Join(root, "big.txt")))
	start := time.Now()
	line := "a line of a very large document\n"
	l.send(`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"` + u + `","languageId":"plaintext","version":1,"text":"` +
		strings.Repeat(strings.ReplaceAll(line, "\n", `\n`), 66<<20/len(line)+1) + `"}}}`)
	l.send(`{"jsonrpc":"2.0","id":2,"method":"sightline/read","params":{"textDocument":{"uri":"` + u + `"},"range":{"start":1,"end":1}}}`)
	var read struct {
		Content  string   `json:"content"`
		Message  string   `json:"message"`
		Warnings []string `json:"warnings"`
	}
	json.Unmarshal(l.answer(2), &read)
	t.Logf("didOpen of 66 MiB and a read answered in %v", time.Since(start).Round(time.Millisecond))
	if strings.Contains(read.Content, "very large") || !strings.Contains(strings.Join(read.Warnings, " ")+read.Message, "limit") {
		t.Fatalf("read of a document over the limit: %+v", read)
	}
	l.send(`{"jsonrpc":"2.0","id":3,"method":"sightline/write","params":{"textDocument":{"uri":"` + u + `"},"mode":"overwrite","content":"x\n"}}`)
	var wr struct {
		OK      bool   `json:"ok"`
		Message string `json:"message"`
	}
	json.Unmarshal(l.answer(3), &wr)
	if wr.OK {
		t.Fatalf("a write to a document the editor holds but sightline does not keep was applied: %+v", wr)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "big.txt")); string(b) != "small on disk\n" {
		t.Fatalf("the disk under the editor's buffer was written: %q", b)
	}
	p := &served{t: t, cmd: cmd, root: root}
	rss := p.settledRSS()
	t.Logf("RSS after a 66 MiB didOpen: %.0f MB (peak %.0f MB)", mb(rss), mb(p.rssOf("VmHWM:")))
	if rss > 200<<20 {
		t.Fatalf("the server holds %.0f MB after a document over the limit was opened", mb(rss))
	}
}
