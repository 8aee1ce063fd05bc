package result

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

func TestMarshal(t *testing.T) {
	type inner struct {
		N int `json:"n"`
	}
	type outcome struct {
		OK      bool   `json:"ok"`
		Message string `json:"message,omitempty"`
	}
	v := struct {
		outcome
		DryRun   bool           `json:"dryRun,omitempty"`
		Line     int            `json:"line,omitempty"`
		Warnings []string       `json:"warnings"`
		Nearest  []string       `json:"nearest,omitempty"`
		Version  *int32         `json:"version"`
		Range    *inner         `json:"range,omitempty"`
		Counts   map[string]int `json:"counts"`
		Text     string         `json:"text"`
	}{Counts: map[string]int{"b": 2, "a": 1}, Text: "<a> & \xff"}
	got, err := Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"ok":false,"warnings":[],"version":null,"counts":{"a":1,"b":2},"text":"<a> & ` + "\ufffd" + `"}`
	if string(got) != want {
		t.Fatalf("Marshal:\n got %s\nwant %s", got, want)
	}
	ind, err := marshalIndent(inner{N: 1})
	if err != nil || string(ind) != "{\n  \"n\": 1\n}" {
		t.Fatalf("marshalIndent: %q %v", ind, err)
	}
}

func TestWrite(t *testing.T) {
	v := struct {
		OK   bool   `json:"ok"`
		Text string `json:"text"`
	}{true, "a\tb\n"}
	var b bytes.Buffer
	if err := Write(&b, v, false); err != nil || b.String() != "{\"ok\":true,\"text\":\"a\\tb\\n\"}\n" {
		t.Fatalf("Write compact: %q %v", b.String(), err)
	}
	b.Reset()
	if err := Write(&b, v, true); err != nil || b.String() != "{\n  \"ok\": true,\n  \"text\": \"a\\tb\\n\"\n}\n" {
		t.Fatalf("Write indented: %q %v", b.String(), err)
	}
}

// marshalIndent encodes a result like Marshal, indented: what Write
// writes, but for the newline.
func marshalIndent(v any) ([]byte, error) {
	b, err := json.Marshal(v, options, jsontext.WithIndent("  "))
	if err != nil {
		return nil, fmt.Errorf("encode %T: %w", v, err)
	}
	return b, nil
}
