package input

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// yamlTaken are the constructs the reader reads itself; yamlLeft what it
// leaves to yaml.v3, each on its own so that one refusal hides no other.
var yamlTaken = []string{
	"a: 1\nb: -2\nc: 0\nd: -0\ne: 123456789012345678\n",
	"t: true\nf: False\nn: null\nt2: ~\nN: NULL\nT: TRUE\n",
	"y: yes\no: off\nON: On\nn: nope\nnan: nan\n",
	"text: plain words # a comment\nurl: http://x.y/z\nhash: a#b\nquote: it's\ncolon: a:b\n",
	"s: 'single ''quoted'' # not a comment'\nd: \"double \\\"q\\\" \\n \\t \\u00e9 \\\\\"\n",
	"lit: |\n\n  after a blank line\n",
	"list:\n  - a\n  - 1\n  -\n  - 'q'\nafter: x\n",
	"list:\n- a\n- b: 1\n  c: 2\n- {k: v}\nnext: 1\n",
	"people:\n  - name: A\n    tags:\n    - x\n    - y\n  - name: B\n    tags: []\n",
	"lit: |\n  line one\n\n    indented\n  # not a comment\nstrip: |-\n  x\n\n\nkeep: |+\n  y\n\n\nend: 1\n",
	"in_list:\n  - |\n    text\n  - |-\n    more\n",
	"flow: {name: shell, id: tool.shell, success: \"exit code 0\", n: [1, 2, [3]], e: {}, l: []}\n",
	"flow: [A patch, Tests, 'q', \"d\"] # c\n",
	"# comment\n\nkey:   \n  # inner comment\n  child: 1\n\n",
	"deep:\n  deeper:\n    deepest: {x: [1, {y: z}]}\n",
	"ws: 'a'   \nws2: [a]  # c\nempty:\nalso_empty: # c\n",
	"unicode: été ✓\n",
	"key with spaces: v\nk~: ~k\nnull: key\n",
	"seq_of_maps:\n- a: 1\n  b:\n  - c\n- d: {e: f}\n",
	"eq: =x\nlt: <<\nstar: a*b\n",
}

var yamlLeft = []string{
	"d: 007\n", "e: 1.5\n", "f: 1e3\n", "g: 0x1F\n", "h: +1\n", "i: 1234567890123456789\n", "s: .nan\n", "d: 2024-01-05\n",
	"bad: \"\\x41\"\n", "bad: [a, ]\n", "nested: \n  - - x\n",
	"slash: \"\\/\"\n", "folded: >\n  a\n  b\n",
	"dup: 1\ndup: 2\n", "anchor: &a x\nalias: *a\n", "tag: !!str 1\n",
	"multi: first\n  second\n", "---\ndoc: 1\n", "doc: 1\n---\ndoc: 2\n", "key: value: again\n",
	"- top\n- level\n", "scalar\n", "", "\"quoted key\": v\n", "? complex\n: v\n",
	"a:\n    b: 1\n  c: 2\n", "a:\n  - x\n  b: 1\n", "a: \"multi\n  line\"\n",
	"lit: |2\n   x\n", "last: |\n  no final line break", "empty_flow_key: {: v}\n",
	"crlf: 1\r\n", "tab:\tx\n", "nel: a\u0085b\n", "nul: \"\\u0000\"\n",
	"k: - x\n", "k: -x\n", "m: -\n", "<<: {a: 1}\n", "k: v\n...\n", "k: {a: }\n", "k: [a: b]\n",
	"k: {<<: {a: 1}}\n", "k: [{a: 1, <<: {b: 2}}]\n",
}

func TestReadYAMLMatchesYAMLv3(t *testing.T) {
	for _, src := range yamlTaken {
		if !compareYAML(t, src) {
			t.Errorf("%q left to yaml.v3", src)
		}
	}
	for _, src := range yamlLeft {
		if compareYAML(t, src) {
			t.Errorf("%q read, not left to yaml.v3", src)
		}
	}
}

// TestReadYAMLTakesTheExamples: the inputs the library's examples are
// written as, and the YAML yaml.v3 writes, are read without yaml.v3.
func TestReadYAMLTakesTheExamples(t *testing.T) {
	files, _ := filepath.Glob("../../templates/*/examples/*.yaml")
	if len(files) == 0 {
		t.Fatal("no examples found")
	}
	taken := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if compareYAML(t, string(b)) {
			taken++
		} else {
			t.Logf("left to yaml.v3: %s", f)
		}
		// The same values as yaml.v3 writes them.
		var n yaml.Node
		if err := yaml.Unmarshal(b, &n); err != nil {
			t.Fatal(err)
		}
		var restyle func(*yaml.Node)
		restyle = func(n *yaml.Node) {
			n.Style = 0
			for _, c := range n.Content {
				restyle(c)
			}
		}
		restyle(&n)
		out, err := yaml.Marshal(&n)
		if err != nil {
			t.Fatal(err)
		}
		compareYAML(t, string(out))
	}
	if taken < len(files)*3/4 {
		t.Errorf("the reader took %d of %d examples", taken, len(files))
	}
}

func FuzzReadYAMLMatchesYAMLv3(f *testing.F) {
	for _, src := range append(yamlTaken, yamlLeft...) {
		f.Add(src)
	}
	f.Fuzz(func(t *testing.T, src string) {
		compareYAML(t, src)
	})
}

// compareYAML holds the reader to yaml.v3 on src when the reader takes it,
// and reports whether it did.
func compareYAML(t *testing.T, src string) bool {
	t.Helper()
	fast := &Document{Input: Input{Name: "f"}, order: &KeyOrder{}, maxDepth: 20}
	defer fast.Release()
	got, ok := fast.readYAML([]byte(src))
	if !ok {
		return false
	}
	slow := &Document{Input: Input{Name: "s", Data: []byte(src)}, order: &KeyOrder{}, maxDepth: 20}
	defer slow.Release()
	want, err := slow.decodeYAMLNodes(context.Background(), []byte(src), 0)
	if err != nil {
		t.Errorf("%q: read, but yaml.v3 refuses it: %v", src, err)
		return true
	}
	g := string(AppendJSON(nil, got, fast.order, false))
	w := string(AppendJSON(nil, want, slow.order, false))
	if g != w {
		t.Errorf("%q:\nreader:  %s\nyaml.v3: %s", src, g, w)
	}
	if strings.Contains(src, "\r") || strings.Contains(src, "\t") {
		t.Errorf("%q: read despite a tab or a carriage return", src)
	}
	return true
}
