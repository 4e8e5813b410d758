package labels_test

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/internal/labels"
)

// TestParsePair: a label as --label gives it, and what is refused.
func TestParsePair(t *testing.T) {
	t.Parallel()
	if l, err := labels.ParsePair(" production = refs/tags/prod "); err != nil || l != (labels.Label{Name: "production", Ref: "refs/tags/prod"}) {
		t.Errorf("%+v, %v", l, err)
	}
	for in, want := range map[string]string{
		"production":        `"production" is not NAME=REF`,
		"=refs/tags/prod":   "the label has no name",
		"prod uction=main":  "holds a character other than",
		"production=":       `label "production" has no ref`,
		"production=--all":  `ref "--all" starts with '-'`,
		"production=a\tb":   "holds a space or a control character",
		"pröduction=main":   "holds a character other than",
		"staging=main~2":    "",
		"v1.4_rc-2=v1.4rc2": "",
	} {
		_, err := labels.ParsePair(in)
		if want == "" {
			if err != nil {
				t.Errorf("%q: %v", in, err)
			}
			continue
		}
		if e := engine.AsError(err); e == nil || e.Kind != engine.KindUsage || !strings.Contains(e.Reason, want) || len(e.Hints) == 0 {
			t.Errorf("%q: %v, want %q", in, err, want)
		}
	}
}

// TestParseList: PROMPTSMITH_LABELS, and its errors naming the entry.
func TestParseList(t *testing.T) {
	t.Parallel()
	got, err := labels.ParseList("production=refs/tags/prod, staging=refs/heads/main,")
	want := []labels.Label{{Name: "production", Ref: "refs/tags/prod"}, {Name: "staging", Ref: "refs/heads/main"}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("%+v, %v", got, err)
	}
	if got, err := labels.ParseList(""); err != nil || len(got) != 0 {
		t.Errorf("empty: %+v, %v", got, err)
	}
	for in, want := range map[string]string{
		"production=prod,staging":         `PROMPTSMITH_LABELS entry 2: "staging" is not NAME=REF`,
		"production=prod,production=main": `PROMPTSMITH_LABELS entry 2: label "production" is given twice`,
	} {
		if _, err := labels.ParseList(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", in, err, want)
		}
	}
}

// writeFile writes a labels file in a temporary folder.
func writeFile(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "labels.yaml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestReadFile: a labels file, and errors naming its file and line.
func TestReadFile(t *testing.T) {
	t.Parallel()
	path := writeFile(t, "# labels of the prompt service\ndefault: production\nlabels:\n  staging: refs/heads/main\n  production: refs/tags/prod\n")
	cfg, err := labels.ReadFile(path)
	if err != nil || cfg.Default != "production" || !reflect.DeepEqual(cfg.Labels, []labels.Label{
		{Name: "staging", Ref: "refs/heads/main"}, {Name: "production", Ref: "refs/tags/prod"}}) {
		t.Errorf("%+v, %v", cfg, err)
	}
	for text, want := range map[string]string{
		"labels:\n  production: prod\ndefaults: production\n":     ":3", // unknown key
		"labels:\n  production: prod\n  production: main\n":       ":3", // a label twice
		"labels:\n  production: [prod]\n":                         ":2",
		"labels:\n  prod uction: main\n":                          ":2",
		"labels:\n  production: prod\n\tstaging: main\n":          ":3", // a tab: not YAML
		"labels: [production]\n":                                  ":1",
		"default:\n  - production\nlabels:\n  production: prod\n": ":2",
		"- production\n": ":1",
	} {
		_, err := labels.ReadFile(writeFile(t, text))
		e := engine.AsError(err)
		if e == nil || e.Kind != engine.KindUsage || !strings.HasSuffix(e.Position, "labels.yaml"+want) || len(e.Hints) == 0 {
			t.Errorf("%q: %#v, want the position ...labels.yaml%s", text, e, want)
		}
	}
	if _, err := labels.ReadFile(filepath.Join(t.TempDir(), "none.yaml")); err == nil || !strings.Contains(err.Error(), "cannot read the labels file") {
		t.Errorf("a missing file: %v", err)
	}
}

// TestSources: a file, the environment and flags, each overriding the
// one before by label name, and the default label's rules.
func TestSources(t *testing.T) {
	t.Parallel()
	path := writeFile(t, "default: staging\nlabels:\n  production: refs/tags/prod\n  staging: refs/heads/main\n  canary: refs/heads/canary\n")
	cfg, err := labels.Sources{File: path, Env: "staging=refs/heads/next,qa=refs/heads/qa", Flags: []string{"canary=v2"}}.Config()
	want := labels.Config{Default: "staging", Labels: []labels.Label{{Name: "canary", Ref: "v2"}, {Name: "production", Ref: "refs/tags/prod"},
		{Name: "qa", Ref: "refs/heads/qa"}, {Name: "staging", Ref: "refs/heads/next"}}}
	if err != nil || cfg.Default != want.Default || !reflect.DeepEqual(cfg.Labels, want.Labels) {
		t.Errorf("%+v, %v", cfg, err)
	}
	if cfg, err := (labels.Sources{File: path, Default: "production"}).Config(); err != nil || cfg.Default != "production" {
		t.Errorf("--default-label over the file's: %+v, %v", cfg, err)
	}
	if cfg, err := (labels.Sources{Flags: []string{"production=refs/tags/prod"}}).Config(); err != nil || cfg.Default != "production" {
		t.Errorf("the only label is the default: %+v, %v", cfg, err)
	}
	// Several labels and none named: the first given, of the first source
	// that gives any, whatever the names' order.
	firsts := []struct {
		src  labels.Sources
		want string
	}{
		{labels.Sources{Flags: []string{"staging=refs/heads/main", "production=refs/tags/prod"}}, "staging"},
		{labels.Sources{Env: "production=prod,canary=main", Flags: []string{"staging=main"}}, "production"},
		{labels.Sources{File: writeFile(t, "labels:\n  zeta: main\n  alpha: prod\n"), Flags: []string{"beta=main"}}, "zeta"},
	}
	for _, c := range firsts {
		if cfg, err := c.src.Config(); err != nil || cfg.Default != c.want {
			t.Errorf("%+v: default %q, %v; want %q", c.src, cfg.Default, err, c.want)
		}
	}

	cases := []struct {
		src  labels.Sources
		want string
	}{
		{labels.Sources{}, "no labels to serve"},
		{labels.Sources{Env: "production=prod", Default: "prod"}, `the default label "prod" is not a label`},
		{labels.Sources{Flags: []string{"production=prod", "production=main"}}, `label "production" is given twice`},
		{labels.Sources{Flags: []string{"production"}}, `--label: "production" is not NAME=REF`},
		{labels.Sources{Env: "production"}, "PROMPTSMITH_LABELS entry 1"},
		{labels.Sources{File: writeFile(t, "default: prod\nlabels:\n  production: prod\n")}, `labels.yaml:1: the default label "prod" is not a label`},
	}
	for _, c := range cases {
		_, err := c.src.Config()
		if e := engine.AsError(err); e == nil || e.Kind != engine.KindUsage || !strings.Contains(err.Error(), c.want) || len(e.Hints) == 0 {
			t.Errorf("%+v: %v, want %q", c.src, err, c.want)
		}
	}
}
