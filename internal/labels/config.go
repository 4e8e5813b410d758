package labels

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/internal/phrase"
)

// EnvVar names the environment variable that gives labels as a list:
// production=refs/tags/prod,staging=refs/heads/main.
const EnvVar = "PROMPTSMITH_LABELS"

// Label is a name a request picks a library by, and the ref (a branch,
// a tag, a commit, resolved to one commit or refused: gitlib.Repo.Resolve)
// whose commit it serves.
type Label struct {
	Name string `json:"name"`
	Ref  string `json:"ref"`
}

// Config is the labels a registry serves, sorted by name, and the one a
// request that names none gets.
type Config struct {
	Labels  []Label
	Default string
	// defaultAt is where a labels file named the default (file:line),
	// for the error of one that is not a label.
	defaultAt string
}

// Sources are the places labels are configured, as render serve takes
// them. A label given in a later source replaces one of the same name in
// an earlier one (file, then environment, then flags), so that a
// deployment can override one label of a shared file.
type Sources struct {
	File    string   // a labels file (--labels-file), "" for none
	Env     string   // the value of PROMPTSMITH_LABELS
	Flags   []string // each --label NAME=REF
	Default string   // --default-label
}

// Config reads the sources into a Config. The default label is
// Sources.Default, else the file's default:, else the first label given:
// the first of the first source that gives any (the file, then the
// environment, then the flags), so that render serve --label
// production=... --label staging=... serves production to a request that
// names no label.
func (s Sources) Config() (Config, error) {
	byName := map[string]string{}
	def, defaultAt, first := "", "", ""
	firstOf := func(name string) {
		if first == "" {
			first = name
		}
	}
	if s.File != "" {
		f, err := ReadFile(s.File)
		if err != nil {
			return Config{}, err
		}
		for _, l := range f.Labels {
			byName[l.Name] = l.Ref
			firstOf(l.Name)
		}
		def, defaultAt = f.Default, f.defaultAt
	}
	env, err := ParseList(s.Env)
	if err != nil {
		return Config{}, err
	}
	for _, l := range env {
		byName[l.Name] = l.Ref
		firstOf(l.Name)
	}
	seen := map[string]string{}
	for _, v := range s.Flags {
		l, err := ParsePair(v)
		if err != nil {
			return Config{}, flagError(err)
		}
		if prev, ok := seen[l.Name]; ok {
			return Config{}, &engine.Error{Kind: engine.KindUsage, Flag: "--label",
				Reason: fmt.Sprintf("label %q is given twice: --label %s and --label %s", l.Name, prev, v),
				Hints:  []string{"give each label once"}}
		}
		seen[l.Name] = v
		byName[l.Name] = l.Ref
		firstOf(l.Name)
	}
	if s.Default != "" {
		def, defaultAt = s.Default, ""
	}
	cfg := Config{Default: def, defaultAt: defaultAt}
	for _, name := range slices.Sorted(maps.Keys(byName)) {
		cfg.Labels = append(cfg.Labels, Label{Name: name, Ref: byName[name]})
	}
	if cfg.Default == "" {
		cfg.Default = first
	}
	return cfg, cfg.Check()
}

// Check reports what makes the configuration unservable: no label, a
// name or ref that is not one, a name given twice, a default that is not
// a label.
func (c Config) Check() error {
	if len(c.Labels) == 0 {
		return &engine.Error{Kind: engine.KindUsage, Reason: "no labels to serve",
			Hints: []string{"give one or more --label NAME=REF (production=refs/tags/prod), a --labels-file or " + EnvVar}}
	}
	names := make([]string, 0, len(c.Labels))
	for _, l := range c.Labels {
		if err := checkPair(l.Name, l.Ref); err != nil {
			return &engine.Error{Kind: engine.KindUsage, Reason: fmt.Sprintf("label %s=%s: %s", l.Name, l.Ref, err.Error()),
				Hints: []string{"a label is NAME=REF: a name of letters, digits, '.', '_' or '-', and a branch, tag or commit"}}
		}
		if slices.Contains(names, l.Name) {
			return &engine.Error{Kind: engine.KindUsage, Reason: fmt.Sprintf("label %q is given twice", l.Name),
				Hints: []string{"give each label once"}}
		}
		names = append(names, l.Name)
	}
	if c.Default == "" {
		return &engine.Error{Kind: engine.KindUsage, Flag: "--default-label",
			Reason: fmt.Sprintf("no default label among %s: requests that name no label would have none", strings.Join(names, ", ")),
			Hints:  []string{"name one with --default-label or default: in the labels file (render serve takes the first label given otherwise)"}}
	}
	if !slices.Contains(names, c.Default) {
		e := &engine.Error{Kind: engine.KindUsage, Flag: "--default-label", Position: c.defaultAt,
			Reason: fmt.Sprintf("the default label %q is not a label", c.Default)}
		if c.defaultAt != "" {
			e.Flag = ""
		}
		if near := phrase.Closest(c.Default, names); near != "" {
			e.Hint("did you mean %q?", near)
		}
		return e.Hint("the labels are: %s", strings.Join(names, ", "))
	}
	return nil
}

// Names lists the labels' names, sorted as the configuration holds them.
func (c Config) Names() []string {
	names := make([]string, len(c.Labels))
	for i, l := range c.Labels {
		names[i] = l.Name
	}
	return names
}

// ParsePair reads one label, NAME=REF, as --label gives it.
func ParsePair(s string) (Label, error) {
	name, ref, ok := strings.Cut(s, "=")
	name, ref = strings.TrimSpace(name), strings.TrimSpace(ref)
	if !ok {
		return Label{}, &engine.Error{Kind: engine.KindUsage, Reason: fmt.Sprintf("%q is not NAME=REF", s),
			Hints: []string{"give a label as production=refs/tags/prod"}}
	}
	if err := checkPair(name, ref); err != nil {
		return Label{}, &engine.Error{Kind: engine.KindUsage, Reason: fmt.Sprintf("%q: %s", s, err.Error()),
			Hints: []string{"give a label as production=refs/tags/prod: a name of letters, digits, '.', '_' or '-', and a branch, tag or commit"}}
	}
	return Label{Name: name, Ref: ref}, nil
}

// ParseList reads labels as PROMPTSMITH_LABELS gives them: NAME=REF
// pairs separated by commas (spaces around them and empty entries are
// ignored). A ref holding a comma is given by flag or file instead.
func ParseList(s string) ([]Label, error) {
	var out []Label
	n := 0
	for entry := range strings.SplitSeq(s, ",") {
		if strings.TrimSpace(entry) == "" {
			continue
		}
		n++
		l, err := ParsePair(entry)
		if err != nil {
			e := *engine.AsError(err)
			e.Reason = fmt.Sprintf("%s entry %d: %s", EnvVar, n, e.Reason)
			return nil, &e
		}
		for _, prev := range out {
			if prev.Name == l.Name {
				return nil, &engine.Error{Kind: engine.KindUsage,
					Reason: fmt.Sprintf("%s entry %d: label %q is given twice", EnvVar, n, l.Name),
					Hints:  []string{"give each label once"}}
			}
		}
		out = append(out, l)
	}
	return out, nil
}

// flagError is a ParsePair error as --label's.
func flagError(err error) error {
	e := *engine.AsError(err)
	e.Flag = "--label"
	return &e
}

// checkPair says what is wrong with a label's name or ref, or nil. Names
// go in URLs (?label=), headers and metric labels, so they are kept to
// a plain alphabet; refs are git's to judge, but for what git would read
// as an option or could not be a ref at all.
func checkPair(name, ref string) error {
	switch {
	case name == "":
		return fmt.Errorf("the label has no name")
	case len(name) > 64:
		return fmt.Errorf("the label name is longer than 64 characters")
	case strings.IndexFunc(name, func(r rune) bool { return !nameRune(r) }) >= 0:
		return fmt.Errorf("label name %q holds a character other than a letter, digit, '.', '_' or '-'", name)
	case ref == "":
		return fmt.Errorf("label %q has no ref", name)
	case strings.HasPrefix(ref, "-"):
		return fmt.Errorf("ref %q starts with '-'", ref)
	case strings.IndexFunc(ref, func(r rune) bool { return r <= ' ' || r == 0x7f }) >= 0:
		return fmt.Errorf("ref %q holds a space or a control character", ref)
	}
	return nil
}

func nameRune(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-'
}
