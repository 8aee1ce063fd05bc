package result

import (
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
)

type judgedMsg struct {
	Method string         `json:"method"`
	Params jsontext.Value `json:"params"`
}

type judgedWrite struct {
	Path    string  `json:"path"`
	Content *string `json:"content"`
}

// A judged message is read as its receiver reads it: exact names, one copy
// of each, valid UTF-8; anything else is an error, never a guess.
func TestDecodeJudged(t *testing.T) {
	var m judgedMsg
	if err := DecodeJudged([]byte(`{"method":"fs/write_text_file","Method":"x","params":{"path":"/w/a","Path":"/w/.git/config"}}`), &m); err != nil {
		t.Fatal(err)
	}
	if m.Method != "fs/write_text_file" {
		t.Errorf("method %q: another case's member was taken", m.Method)
	}
	var w judgedWrite
	if err := DecodeJudged(m.Params, &w); err != nil || w.Path != "/w/a" {
		t.Errorf("path %q (%v): another case's member was taken", w.Path, err)
	}
	for _, bad := range []string{
		`{"method":"a","method":"b"}`,
		`{"method":"a","params":{"path":"/w/a","path":"/w/b"}}`,
		`{"method":"a","params":{"path":"/w/a","p\u0061th":"/w/b"}}`,
		"{\"method\":\"a\xff\"}",
		`{"method":"a"} {"method":"b"}`,
		`{"method":1}`,
	} {
		var m judgedMsg
		err := DecodeJudged([]byte(bad), &m)
		if err == nil {
			t.Errorf("%s was decoded (method %q)", bad, m.Method)
			continue
		}
		if !strings.Contains(err.Error(), "exactly as its receiver reads it") {
			t.Errorf("%s: the error does not say why: %v", bad, err)
		}
	}
}
