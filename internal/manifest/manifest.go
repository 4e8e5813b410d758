// Package manifest reads templates/<variant>/prompt.yaml: everything about a
// variant that an author may change without Go. templates/README.md
// documents each field for authors.
package manifest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/promptsmith/promptsmith/internal/input"
	"github.com/promptsmith/promptsmith/internal/phrase"
	"github.com/promptsmith/promptsmith/internal/pointer"
	"github.com/promptsmith/promptsmith/internal/problem"
	"gopkg.in/yaml.v3"
)

// Manifest is one variant's prompt.yaml.
type Manifest struct {
	Description string `yaml:"description" json:"description"`
	// Schema names schemas/<schema>.schema.json; it defaults to the variant's name.
	Schema string `yaml:"schema" json:"schema"`
	// Sections are rendered in this order from <name>.md.tmpl files.
	Sections []string `yaml:"sections" json:"sections"`
	// Join is written between kept sections; it defaults to "\n".
	Join *string `yaml:"join" json:"join,omitempty"`
	// IDs are hashes of parts of the input, available to templates as .<name>.
	IDs map[string]IDSpec `yaml:"ids" json:"ids,omitempty"`
	// Verbatim fields are embedded byte for byte between two marker lines.
	Verbatim []Verbatim `yaml:"verbatim" json:"verbatim,omitempty"`
	Rules    Rules      `yaml:"rules" json:"rules"`
	Checks   Checks     `yaml:"checks" json:"checks"`
	// Log maps attribute names to input pointers for the render log.
	Log map[string]string `yaml:"log" json:"log,omitempty"`
	// Gather declares the probes of render gather: input fields filled in
	// from the host before rendering (package gather runs them).
	Gather []Probe `yaml:"gather" json:"gather,omitempty"`
	// Budget declares what may be cut, and in which order, to fit the
	// prompt to a number of tokens (package budget).
	Budget []Unit `yaml:"budget" json:"budget,omitempty"`
	// BudgetExamples are examples also rendered to a number of tokens,
	// each with a golden file of its own.
	BudgetExamples []BudgetExample `yaml:"budget_examples" json:"budget_examples,omitempty"`
	// Cache declares the input fields that change between requests and
	// where a provider's cache breakpoints go (cache.go).
	Cache *Cache `yaml:"cache" json:"cache,omitempty"`
	// Seed names the document whose builder the variant's prompts are held
	// to byte for byte, and the examples pinned to it.
	Seed *Seed `yaml:"seed" json:"seed,omitempty"`
}

// Seed is the document a variant reproduces (a file of the seeds folder,
// such as 002_a6e0a108699b94e3.txt), the builder in it whose output the
// variant writes, and the examples whose prompts are held to that
// builder's byte for byte: their golden files are the builder's output,
// which the module's seed tests compare with a transcription of the
// builder. render test never rewrites a pinned example's golden file; an
// example not pinned (one using a field the seed does not know) is
// golden-tested like any other.
//
// A variant that writes more than the builder does names the builder's
// sections, which lead the prompt (Sections): a pinned example then has a
// second golden file, <example>.seed.md, that holds only what those
// sections write, the builder's output, and only that file is held to the
// seed; the rest of the prompt is golden-tested like any other.
type Seed struct {
	Document string   `yaml:"document" json:"document"`
	Builder  string   `yaml:"builder" json:"builder,omitempty"`
	Pinned   []string `yaml:"pinned" json:"pinned"`
	Sections []string `yaml:"sections" json:"sections,omitempty"`
}

// SeedGolden is the name of the golden file of a pinned example's seed
// part, when the seed names its sections.
func SeedGolden(example string) string { return example + ".seed.md" }

// Pins reports whether the example is pinned to the seed; a nil Seed pins
// nothing.
func (s *Seed) Pins(example string) bool {
	return s != nil && slices.Contains(s.Pinned, example)
}

// String names the seed as messages do: "seed 002_x.txt (buildX in y.ts)".
func (s *Seed) String() string {
	if s == nil {
		return ""
	}
	if s.Builder == "" {
		return "seed " + s.Document
	}
	return "seed " + s.Document + " (" + s.Builder + ")"
}

// BudgetExample renders an example fitted to MaxTokens tokens of the
// encoding Tokens (default o200k_base); its golden file is
// <example>.<max_tokens>-tokens.md.
type BudgetExample struct {
	Example   string `yaml:"example" json:"example"`
	MaxTokens int    `yaml:"max_tokens" json:"max_tokens"`
	Tokens    string `yaml:"tokens" json:"tokens,omitempty"`
}

// Encoding is the token encoding the example is counted with.
func (b BudgetExample) Encoding() string {
	if b.Tokens == "" {
		return "o200k_base"
	}
	return b.Tokens
}

// Golden is the name of the example's golden file.
func (b BudgetExample) Golden() string { return fmt.Sprintf("%s.%d-tokens.md", b.Example, b.MaxTokens) }

// IDSpec derives an id from a canonical encoding of the input fields Of.
type IDSpec struct {
	Of     []string `yaml:"of" json:"of"`
	Prefix string   `yaml:"prefix" json:"prefix,omitempty"`
	Length int      `yaml:"length" json:"length,omitempty"` // hex digits, default 16
}

// Verbatim declares a region of the output that holds an input field exactly,
// between a Start and an End marker line. Marker lines inside the field must
// balance (that is how nesting works); marker text anywhere else in the input
// is refused, so nothing can fool extraction.
type Verbatim struct {
	Name  string `yaml:"name" json:"name"`
	Field string `yaml:"field" json:"field"`
	Start string `yaml:"start" json:"start"`
	End   string `yaml:"end" json:"end"`
	// MaxBytes refuses a longer field (it is never truncated); MaxBytesFrom
	// names an input field that may set another limit.
	MaxBytes     int    `yaml:"max_bytes" json:"max_bytes,omitempty"`
	MaxBytesFrom string `yaml:"max_bytes_from" json:"max_bytes_from,omitempty"`
}

func (v Verbatim) String() string { return fmt.Sprintf("%s (%s)", v.Name, v.Field) }

// Rules check the input beyond what a JSON Schema can say.
type Rules struct {
	// Unique pointer patterns (with *) whose values must not repeat.
	Unique []string `yaml:"unique" json:"unique,omitempty"`
	// References: every value at Field must appear among the values at In.
	References []Reference `yaml:"references" json:"references,omitempty"`
	// TemplateChoice: the value at Field names one of the template files
	// matching Templates, with "*" standing for the value.
	TemplateChoice []TemplateChoice `yaml:"template_choice" json:"template_choice,omitempty"`
	// SectionRefs: every value at Field that is not a link (scheme://...)
	// must be a SectionPath of the markdown in the named verbatim field.
	SectionRefs []SectionRef `yaml:"section_refs" json:"section_refs,omitempty"`
}

// SectionRef says the values at Field are SectionPaths of a verbatim field.
type SectionRef struct {
	Field    string `yaml:"field" json:"field"`
	Verbatim string `yaml:"verbatim" json:"verbatim"`
}

// Reference says the values at Field must appear among those at In.
type Reference struct {
	Field string `yaml:"field" json:"field"`
	In    string `yaml:"in" json:"in"`
}

// TemplateChoice says the value at Field picks one of the templates matching
// Templates.
type TemplateChoice struct {
	Field     string `yaml:"field" json:"field"`
	Templates string `yaml:"templates" json:"templates"`
}

// Checks run on every rendered prompt.
type Checks struct {
	// Headings must appear at the top level of the document, in this order
	// (written as in markdown: "## Parent Prompt").
	Headings []string   `yaml:"headings" json:"headings,omitempty"`
	Forbid   []TextRule `yaml:"forbid" json:"forbid,omitempty"`
	Require  []TextRule `yaml:"require" json:"require,omitempty"`
	MaxBytes int        `yaml:"max_bytes" json:"max_bytes,omitempty"`
}

// TextRule forbids or requires Text in the prompt when the template
// expression When is true for the input (always, when When is empty).
type TextRule struct {
	Text string `yaml:"text" json:"text"`
	When string `yaml:"when" json:"when,omitempty"`
	// OutsideVerbatim ignores the verbatim regions when looking for Text.
	OutsideVerbatim bool `yaml:"outside_verbatim" json:"outside_verbatim,omitempty"`
}

// JoinText is what is written between kept sections.
func (m *Manifest) JoinText() string {
	if m.Join == nil {
		return "\n"
	}
	return *m.Join
}

// VerbatimNamed returns the verbatim region of that name.
func (m *Manifest) VerbatimNamed(name string) (Verbatim, bool) {
	for _, vb := range m.Verbatim {
		if vb.Name == name {
			return vb, true
		}
	}
	return Verbatim{}, false
}

// Parse reads a manifest; file is its path as the author sees it, for
// error positions.
func Parse(file string, data []byte) (*Manifest, error) {
	var m Manifest
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	err := dec.Decode(&m)
	if errors.Is(err, io.EOF) {
		// No document at all (an empty or comment-only file): nothing is
		// set, which the checks below say in the author's terms.
		err = nil
	}
	// The document as nodes, parsed once for what the decoded values do
	// not say: fractions yaml.v3 truncates, and the lines of cache:.
	var doc *yaml.Node
	var nodes yaml.Node
	if yaml.Unmarshal(data, &nodes) == nil && len(nodes.Content) > 0 {
		doc = nodes.Content[0]
	}
	var te *yaml.TypeError
	if err == nil || errors.As(err, &te) {
		err = withFractions(doc, te)
	}
	if err != nil {
		return nil, yamlError(file, data, err)
	}
	if len(m.Sections) == 0 {
		return nil, problem.Template(file, "the manifest lists no sections").
			Hint("add sections: [name, ...], one per <name>.md.tmpl file, in output order")
	}
	for _, v := range m.Verbatim {
		if v.Field == "" || v.Start == "" || v.End == "" || v.Start == v.End {
			return nil, problem.Template(file, "verbatim %q needs a field and two different markers, start and end", v.Name)
		}
		if strings.ContainsAny(v.Start+v.End, "\r\n") {
			return nil, problem.Template(file, "verbatim %q: a marker is one line; remove the line break", v.Name)
		}
	}
	for _, r := range m.Rules.SectionRefs {
		if _, ok := m.VerbatimNamed(r.Verbatim); !ok {
			return nil, problem.Template(file, "section_refs names verbatim %q, which the manifest does not declare", r.Verbatim)
		}
	}
	for _, p := range m.Pointers() {
		if !pointer.Valid(p) {
			return nil, problem.Template(file, "%q is not a JSON pointer", p).Hint("write it as /field/sub, starting with /")
		}
	}
	for _, name := range slices.Sorted(maps.Keys(m.IDs)) {
		id := m.IDs[name]
		if len(id.Of) == 0 {
			return nil, problem.Template(file, "id %q: list the input fields it is a hash of under of:", name)
		}
		if id.Length < 0 || id.Length > 64 {
			return nil, problem.Template(file, "id %q: length must be between 1 and 64 hex digits", name)
		}
	}
	if err := m.Seed.check(file); err != nil {
		return nil, err
	}
	if err := checkProbes(file, m.Gather); err != nil {
		return nil, err
	}
	if err := m.checkBudget(file); err != nil {
		return nil, err
	}
	if err := m.checkCache(file, doc); err != nil {
		return nil, err
	}
	return &m, nil
}

var yamlLine = regexp.MustCompile(`line (\d+): (.*)`)

// yamlError places a YAML error at the line yaml.v3 names in its message,
// the only place it gives one.
func yamlError(file string, data []byte, err error) *problem.Error {
	var te *yaml.TypeError
	if !errors.As(err, &te) {
		// A syntax error: yaml.v3 names the line the broken construct starts
		// on, so find the line that breaks it.
		line, msg := input.YAMLErrorLine(data, err)
		pos := file
		if line > 0 {
			pos = fmt.Sprintf("%s:%d", file, line)
		}
		return (&problem.Error{Kind: problem.KindTemplate, Position: pos, Reason: "invalid YAML: " + msg, Err: err}).
			Hint("check the indentation and quoting at that line")
	}
	e := &problem.Error{Kind: problem.KindTemplate, Position: file, Err: err}
	for i, te := range te.Errors {
		pos, msg := file, te
		if sm := yamlLine.FindStringSubmatch(te); sm != nil {
			pos, msg = file+":"+sm[1], sm[2]
		}
		x := authorWords(msg)
		if i == 0 {
			e.Position, e.Reason, e.Hints = pos, x.Reason, x.Hints
			continue
		}
		x.Position = pos
		e.Also = append(e.Also, x)
	}
	return e.Hint("templates/README.md lists the manifest's fields")
}

var (
	unknownField = regexp.MustCompile(`^field (\S+) not found in type manifest\.(\w+)$`)
	// yaml.v3 quotes the value of a scalar only, never of a list or mapping.
	wrongType = regexp.MustCompile("^cannot unmarshal !!(\\w+)( `(.*)`)? into (.+)$")
)

// authorWords says a yaml.v3 type error as an author reads it: the field
// that is not one, with the closest that is; what was expected, in words
// rather than a Go type.
func authorWords(msg string) *problem.Error {
	e := &problem.Error{Kind: problem.KindTemplate, Reason: msg}
	if sm := unknownField.FindStringSubmatch(msg); sm != nil {
		known := FieldNames(sm[2])
		e.Reason = fmt.Sprintf("unknown field %q", sm[1])
		if near := phrase.Closest(sm[1], known); near != "" {
			e.Hint("did you mean %q?", near)
		}
		if len(known) > 0 {
			e.Hint("the fields here are: %s", strings.Join(known, ", "))
		}
		return e
	}
	if sm := wrongType.FindStringSubmatch(msg); sm != nil {
		e.Reason = fmt.Sprintf("expected %s, got %s", goTypeWords(sm[4]), yamlTagWords(sm[1]))
		if sm[2] != "" {
			e.Reason += fmt.Sprintf(" %q", sm[3])
		}
	}
	return e
}

// goTypeWords says a Go type of the manifest as its author writes YAML:
// a pointer as what it points to, a struct as a mapping.
func goTypeWords(t string) string {
	if elem, ok := strings.CutPrefix(t, "*"); ok {
		return goTypeWords(elem)
	}
	words := map[string]string{"string": "text", "bool": "true or false", "int": "a whole number", "uint": "a whole number",
		"float": "a number", "list": "a list", "map": "a mapping of names to values"}
	if w, ok := words[phrase.GoKind(t)]; ok {
		return w
	}
	return "a mapping (" + strings.TrimPrefix(t, "manifest.") + ")"
}

func yamlTagWords(tag string) string {
	switch tag {
	case "str":
		return "the text"
	case "int", "float":
		return "the number"
	case "bool":
		return "the boolean"
	case "seq":
		return "a list"
	case "map":
		return "a mapping"
	case "null":
		return "nothing"
	}
	return tag
}

// Pointers are the input fields the manifest names: what verbatim regions
// hold and the limits they take, what rules check, what ids hash, the
// log's attributes, and the lists and texts a budget cuts. Load checks
// each is a JSON pointer; lint counts them as read.
func (m *Manifest) Pointers() []string {
	var ps []string
	for _, v := range m.Verbatim {
		ps = append(ps, v.Field)
		if v.MaxBytesFrom != "" {
			ps = append(ps, v.MaxBytesFrom)
		}
	}
	ps = append(ps, m.Rules.Unique...)
	for _, r := range m.Rules.References {
		ps = append(ps, r.Field, r.In)
	}
	for _, r := range m.Rules.TemplateChoice {
		ps = append(ps, r.Field)
	}
	for _, r := range m.Rules.SectionRefs {
		ps = append(ps, r.Field)
	}
	for _, name := range slices.Sorted(maps.Keys(m.IDs)) {
		ps = append(ps, m.IDs[name].Of...)
	}
	for _, name := range slices.Sorted(maps.Keys(m.Log)) {
		ps = append(ps, m.Log[name])
	}
	for _, u := range m.Budget {
		ps = append(ps, u.List, u.Text)
	}
	return ps
}

// check: a seed names its document, and pins each example once.
func (s *Seed) check(file string) error {
	if s == nil {
		return nil
	}
	if strings.TrimSpace(s.Document) == "" {
		return problem.Template(file, "seed: document is empty").
			Hint("name the seed document the variant reproduces, e.g. document: 002_a6e0a108699b94e3.txt, or remove seed:")
	}
	seen := map[string]bool{}
	for i, name := range s.Pinned {
		if name == "" {
			return problem.Template(file, "seed.pinned[%d] is empty", i).Hint("name an example, the file name under examples/ without its extension")
		}
		if seen[name] {
			return problem.Template(file, "seed.pinned[%d]: example %q is pinned twice", i, name).Hint("remove one of the two")
		}
		seen[name] = true
	}
	return nil
}
