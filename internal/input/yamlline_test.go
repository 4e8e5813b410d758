package input

import (
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// TestYAMLErrorLine: each kind of YAML error names the line that breaks
// the document, where yaml.v3 names the line of the enclosing construct.
func TestYAMLErrorLine(t *testing.T) {
	cases := []struct {
		name, doc string
		line      int
	}{
		{"a key indented too little", "a:\n  b: 1\n  c: 2\n d: 3\ne: 4\n", 4},
		{"a key after a list", strings.Repeat("x: 1\n", 30) + "y:\n  - z\n  w: 1\n", 33},
		{"a line that is not a key", "list:\n  - a\n  - b: c\n    d\n  - e\n", 4},
		{"a tab", "a:\n\tb: 1\n", 2},
		{"two colons", "a: 1\nb: c: d\n", 2},
		{"an alias to nothing", "a: 1\nb: *x\n", 2},
		{"an unclosed quote", "a: 1\nb: 2\nc: \"oops\nd: 4\n", 3},
	}
	for _, c := range cases {
		var n yaml.Node
		err := yaml.Unmarshal([]byte(c.doc), &n)
		if err == nil {
			t.Fatalf("%s: no error", c.name)
		}
		if line, msg := YAMLErrorLine([]byte(c.doc), err); line != c.line || msg == "" || strings.HasPrefix(msg, "line") {
			t.Errorf("%s: line %d (%q), want %d; yaml.v3 said %v", c.name, line, msg, c.line, err)
		}
	}
}

// TestInputYAMLErrorsAtTheirLine: an input's YAML error is reported at the
// line that breaks it, as a manifest's is.
func TestInputYAMLErrorsAtTheirLine(t *testing.T) {
	doc := strings.Repeat("x: 1\n", 30) + "y:\n  - z\n  w: 1\n"
	_, err := Decode(Input{Name: "in.yaml", Data: []byte(doc)}, nil)
	if err == nil || !strings.HasPrefix(err.Error(), "in.yaml:33: invalid YAML") {
		t.Errorf("got %v", err)
	}
}

// TestYAMLIndentationAdvice: a YAML error says what is wrong with the
// indentation of its line, in YAML's terms: a column no line above starts
// at, a tab; never JSON's.
func TestYAMLIndentationAdvice(t *testing.T) {
	cases := []struct{ name, doc, want string }{
		{"a key one space in", "title: A\nitems:\n  - id: x\n sev: 1\n",
			"in.yaml:4: invalid YAML: did not find expected key\n  hint: line 4 starts at column 2, where no line above it starts (lines above start at columns 1, 3, 5): indent it as the key it belongs beside"},
		{"a tab", "a:\n\tb: 1\n", "line 2 is indented with a tab: YAML indents with spaces only"},
	}
	for _, c := range cases {
		_, err := Decode(Input{Name: "in.yaml", Data: []byte(c.doc)}, nil)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "JSON") {
			t.Errorf("%s: got %v\nwant it to hold %s, and not to speak of JSON", c.name, err, c.want)
		}
	}
}
