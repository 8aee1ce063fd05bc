package result

import (
	"strings"
	"testing"
)

func (l *large) JoinText(text string) { l.Text = text }

// everyByte is a text with every byte the JSON escapes and every other
// ASCII byte, in lines, and non-ASCII (U+2028 among them), n bytes or so.
func everyByte(n int) string {
	var line strings.Builder
	for c := range 0x80 {
		line.WriteByte(byte(c))
	}
	line.WriteString("é€\u2028\u2029𝄞\"\\\t\n")
	return strings.Repeat(line.String(), n/line.Len()+1)
}

// A result's long text apart from its JSON decodes to the result the whole
// JSON decodes to, whatever its bytes.
func TestApartRoundTrip(t *testing.T) {
	for _, v := range []large{
		{OK: true, Name: "n", Text: everyByte(1 << 20), After: []int{1, 2}},
		{Text: "x", Nested: map[string]string{"text": "y"}},
	} {
		b, text, err := MarshalApart(v)
		if err != nil {
			t.Fatal(err)
		}
		var rest large
		if err := Unmarshal(b, &rest); err != nil || text != v.Text || rest.Text != "" {
			t.Fatalf("text apart %d bytes of %d, JSON %.100s (%v)", len(text), len(v.Text), b, err)
		}
		var got large
		if err := UnmarshalApart(b, text, &got); err != nil {
			t.Fatal(err)
		}
		whole, _ := Marshal(v)
		var want large
		if err := Unmarshal(whole, &want); err != nil {
			t.Fatal(err)
		}
		if got.Text != want.Text || got.Name != want.Name || got.OK != want.OK || len(got.After) != len(want.After) || got.Nested["text"] != want.Nested["text"] {
			t.Fatalf("apart decodes to %+.100v, whole to %+.100v", got, want)
		}
	}
}

// A result with no long text, an empty one, or one that is not UTF-8 (the
// JSON carries U+FFFD for its bad bytes) is encoded whole.
func TestApartOnlyForUTF8Text(t *testing.T) {
	for _, v := range []any{large{Text: ""}, large{Text: "a\xffb"}, plainLarge{Text: "abc"}, struct{ A int }{1}} {
		b, text, err := MarshalApart(v)
		whole, _ := Marshal(v)
		if err != nil || text != "" || string(b) != string(whole) {
			t.Fatalf("%T %+v: apart %q %q %v, want the whole JSON %q", v, v, b, text, err, whole)
		}
	}
}

// What a peer sends apart is refused when it cannot be the result's text.
func TestApartRefusesWhatIsNotTheText(t *testing.T) {
	for _, c := range []struct {
		name, json, text string
		v                any
		want             string
	}{
		{"no text member", `{"ok":true}`, "x", &plainLarge{}, "no long text"},
		{"text in both", `{"text":"y"}`, "x", &large{}, "both in the JSON and apart"},
		{"not UTF-8", `{"text":""}`, "a\xffb", &large{}, "not UTF-8"},
		{"bad JSON", `{"text":`, "x", &large{}, "decode"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := UnmarshalApart([]byte(c.json), c.text, c.v)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one saying %q", err, c.want)
			}
		})
	}
}
