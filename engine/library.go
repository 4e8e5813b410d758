package engine

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"text/template"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// Library is a loaded set of variants. It is immutable and safe for concurrent
// renders: templates are parsed and schemas compiled once, in Load.
type Library struct {
	variants map[string]*Variant
	names    []string
	logger   *slog.Logger
	origin   string
	tokens   TokenCounter
}

// TokenCounter counts the tokens of a text for a model's encoding; package
// tokens provides one.
type TokenCounter interface {
	CountTokens(text string) int
}

// Variant is one prompt family: its manifest, parsed templates, compiled schema
// and examples.
type Variant struct {
	Name     string
	Manifest *Manifest
	dir      string // "templates/<name>" as the author sees it, for error positions
	schemas  *schemaSet
	schema   *jsonschema.Schema
	defaults *defaults
	tmpl     *template.Template
	choices  map[string][]string // template_choice field → the names there are
	examples map[string]Input
	// sectionPaths caches the outlines section_refs rules check against.
	sectionPaths pathCache
}

// ErrUnknownVariant is wrapped by the error Variant returns for a name the
// library does not have.
var ErrUnknownVariant = errors.New("unknown variant")

// Option configures Load.
type Option func(*Library)

// WithLogger sends render logs (log/slog) to l. Without it nothing is logged.
func WithLogger(l *slog.Logger) Option { return func(lib *Library) { lib.logger = l } }

// WithTokenCounter fills in the token count of each section and of the whole
// prompt. Counting costs more than rendering, so it is off unless asked for.
func WithTokenCounter(tc TokenCounter) Option { return func(lib *Library) { lib.tokens = tc } }

// WithOrigin names where the files came from, so that error positions read as
// paths the author can open (a directory for a working copy).
func WithOrigin(dir string) Option { return func(lib *Library) { lib.origin = dir } }

// Load reads every variant of a library: an fs.FS holding templates/ and schemas/.
func Load(fsys fs.FS, opts ...Option) (*Library, error) {
	lib := &Library{variants: map[string]*Variant{}}
	for _, o := range opts {
		o(lib)
	}
	if lib.logger == nil {
		lib.logger = slog.New(slog.DiscardHandler)
	}
	schemas, err := loadSchemas(fsys, lib.origin)
	if err != nil {
		return nil, err
	}
	manifests, _ := fs.Glob(fsys, "templates/*/prompt.yaml")
	if len(manifests) == 0 {
		return nil, &Error{Kind: KindUsage, Field: lib.label("templates"),
			Reason: "no variants found", Hints: []string{"a variant is a folder templates/<name>/ with a prompt.yaml manifest"}}
	}
	for _, mf := range manifests {
		v, err := lib.loadVariant(fsys, path.Dir(mf), schemas)
		if err != nil {
			return nil, err
		}
		lib.variants[v.Name] = v
		lib.names = append(lib.names, v.Name)
	}
	slices.Sort(lib.names)
	return lib, nil
}

// LoadDir loads an author's working copy: dir holds templates/ and schemas/,
// or is the templates folder itself.
func LoadDir(dir string, opts ...Option) (*Library, error) {
	root := dir
	if _, err := os.Stat(filepath.Join(dir, "templates")); err != nil && filepath.Base(filepath.Clean(dir)) == "templates" {
		root = filepath.Dir(filepath.Clean(dir))
	}
	if _, err := os.Stat(filepath.Join(root, "templates")); err != nil {
		return nil, &Error{Kind: KindUsage, Field: dir, Reason: "no templates/ folder here",
			Hints: []string{"point --templates at the folder that holds templates/ and schemas/"}}
	}
	return Load(os.DirFS(root), append([]Option{WithOrigin(root)}, opts...)...)
}

func (lib *Library) label(p string) string {
	if lib.origin == "" {
		return p
	}
	return filepath.Join(lib.origin, p)
}

// Names lists the variants, sorted.
func (lib *Library) Names() []string { return slices.Clone(lib.names) }

// Variant returns the named variant or a usage error that lists the others.
func (lib *Library) Variant(name string) (*Variant, error) {
	if v, ok := lib.variants[name]; ok {
		return v, nil
	}
	e := &Error{Kind: KindUsage, Field: name, Reason: fmt.Sprintf("unknown variant %q", name), Err: ErrUnknownVariant}
	if near := closest(name, lib.names); near != "" {
		e.hint("did you mean %q?", near)
	}
	return nil, e.hint("the variants are: %s", strings.Join(lib.names, ", "))
}

func (lib *Library) loadVariant(fsys fs.FS, dir string, schemas *schemaSet) (*Variant, error) {
	name := path.Base(dir)
	mfile := lib.label(path.Join(dir, "prompt.yaml"))
	data, err := fs.ReadFile(fsys, path.Join(dir, "prompt.yaml"))
	if err != nil {
		return nil, authorErr(mfile, "cannot read the manifest: %v", err)
	}
	m, err := parseManifest(mfile, data)
	if err != nil {
		return nil, err
	}
	if m.Schema == "" {
		m.Schema = name
	}
	v := &Variant{Name: name, Manifest: m, dir: lib.label(dir), schemas: schemas,
		choices: map[string][]string{}, examples: map[string]Input{}}
	v.schema = schemas.compiled[m.Schema]
	if v.schema == nil {
		return nil, authorErr(mfile, "schema %q not found", m.Schema).
			hint("add schemas/%s.schema.json, or name an existing schema with schema: in the manifest", m.Schema)
	}
	v.defaults = schemas.defaultsFor(m.Schema)
	if err := v.checkIDNames(); err != nil {
		return nil, err
	}
	if err := v.checkGather(); err != nil {
		return nil, err
	}
	if err := v.parseTemplates(fsys, dir); err != nil {
		return nil, err
	}
	examples, _ := fs.Glob(fsys, path.Join(dir, "examples", "*"))
	for _, ex := range examples {
		ext := path.Ext(ex)
		if ext != ".yaml" && ext != ".yml" && ext != ".json" {
			continue
		}
		b, err := fs.ReadFile(fsys, ex)
		if err != nil {
			return nil, authorErr(lib.label(ex), "cannot read example: %v", err)
		}
		v.examples[strings.TrimSuffix(path.Base(ex), ext)] = Input{Name: lib.label(ex), Data: b}
	}
	return v, nil
}

func (v *Variant) checkIDNames() error {
	props := v.schemas.propertyNames(schemaURL+v.Manifest.Schema+".schema.json", "")
	for _, id := range slices.Sorted(maps.Keys(v.Manifest.IDs)) {
		if slices.Contains(props, id) {
			return authorErr(v.dir+"/prompt.yaml", "id %q has the name of an input field", id).
				hint("templates see ids next to the input's top-level fields; rename one of them")
		}
	}
	return nil
}

// parseTemplates parses every *.tmpl file below the variant folder into one
// set, named by its path inside the folder ("overview.md.tmpl",
// "modes/code.md.tmpl"), and the manifest's conditions next to them.
func (v *Variant) parseTemplates(fsys fs.FS, dir string) error {
	var self *template.Template
	t := template.New(v.Name).Option("missingkey=error").Funcs(funcMap(&self))
	self = t
	var files []string
	err := fs.WalkDir(fsys, dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != dir && d.Name() == "examples" {
			return fs.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".tmpl") {
			files = append(files, strings.TrimPrefix(p, dir+"/"))
		}
		return nil
	})
	if err != nil {
		return authorErr(v.dir, "cannot list templates: %v", err)
	}
	for _, f := range files {
		src, err := fs.ReadFile(fsys, path.Join(dir, f))
		if err != nil {
			return authorErr(v.dir+"/"+f, "cannot read template: %v", err)
		}
		if _, err := t.New(f).Parse(string(src)); err != nil {
			return v.templateError(err)
		}
	}
	for _, s := range v.Manifest.Sections {
		if t.Lookup(s+".md.tmpl") == nil {
			return authorErr(v.dir+"/prompt.yaml", "section %q has no template", s).
				hint("create %s/%s.md.tmpl, or remove %q from sections", v.dir, s, s)
		}
	}
	for _, f := range files {
		if !strings.Contains(f, "/") && !strings.HasPrefix(f, "_") &&
			!slices.Contains(v.Manifest.Sections, strings.TrimSuffix(f, ".md.tmpl")) {
			return authorErr(v.dir+"/"+f, "template is not a listed section").
				hint("add %q to sections in prompt.yaml, or rename it _%s if it is a partial", strings.TrimSuffix(f, ".md.tmpl"), f)
		}
	}
	for i, c := range v.Manifest.Rules.TemplateChoice {
		prefix, suffix, ok := strings.Cut(c.Templates, "*")
		if !ok {
			return authorErr(v.dir+"/prompt.yaml", "template_choice %d: templates needs a * where the value goes", i)
		}
		for _, f := range files {
			if strings.HasPrefix(f, prefix) && strings.HasSuffix(f, suffix) && len(f) > len(prefix)+len(suffix) {
				v.choices[c.Field] = append(v.choices[c.Field], f[len(prefix):len(f)-len(suffix)])
			}
		}
		if len(v.choices[c.Field]) == 0 {
			return authorErr(v.dir+"/prompt.yaml", "template_choice %d: no template matches %q", i, c.Templates)
		}
	}
	rules := [][]TextRule{v.Manifest.Checks.Forbid, v.Manifest.Checks.Require}
	for k, kind := range []string{"forbid", "require"} {
		for i, r := range rules[k] {
			if r.When == "" {
				continue
			}
			if _, err := t.New(conditionName(kind, i)).Parse(r.When); err != nil {
				return v.templateError(err)
			}
		}
	}
	v.tmpl = t
	return nil
}

func conditionName(kind string, i int) string {
	return fmt.Sprintf("prompt.yaml checks.%s[%d].when", kind, i)
}

// Description is the manifest's one-line description.
func (v *Variant) Description() string { return v.Manifest.Description }

// Examples lists the names of the variant's example inputs, sorted.
func (v *Variant) Examples() []string {
	names := make([]string, 0, len(v.examples))
	for n := range v.examples {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Example returns an example input by name, or a usage error listing them.
func (v *Variant) Example(name string) (Input, error) {
	if in, ok := v.examples[name]; ok {
		return in, nil
	}
	e := &Error{Kind: KindUsage, Field: name, Reason: fmt.Sprintf("variant %s has no example %q", v.Name, name)}
	if near := closest(name, v.Examples()); near != "" {
		e.hint("did you mean %q?", near)
	}
	return Input{}, e.hint("the examples are: %s", strings.Join(v.Examples(), ", "))
}

// Schema returns the raw JSON Schema of the variant's input.
func (v *Variant) Schema() any { return v.schemas.raw[schemaURL+v.Manifest.Schema+".schema.json"] }

// SchemaJSON returns the variant's JSON Schema file as written.
func (v *Variant) SchemaJSON() []byte {
	return appendJSON(nil, v.Schema(), true)
}

// Templates returns the variant's parsed template set, for tools that execute
// a section directly; benchmarks use it as the floor the pipeline is measured against.
func (v *Variant) Templates() *template.Template { return v.tmpl }

// VerbatimRegion picks the verbatim region that extraction reads: the one
// named region of variant, where either may be empty when only one variant,
// or one region, is declared.
func (lib *Library) VerbatimRegion(variant, region string) (Verbatim, error) {
	var candidates []string
	if variant != "" {
		candidates = []string{variant}
	} else {
		for _, name := range lib.names {
			if len(lib.variants[name].Manifest.Verbatim) > 0 {
				candidates = append(candidates, name)
			}
		}
	}
	usage := func(format string, args ...any) error {
		return &Error{Kind: KindUsage, Reason: fmt.Sprintf(format, args...)}
	}
	switch len(candidates) {
	case 0:
		return Verbatim{}, usage("no variant declares a verbatim region to extract")
	case 1:
	default:
		return Verbatim{}, usage("several variants declare verbatim regions (%s): name one", strings.Join(candidates, ", "))
	}
	v, err := lib.Variant(candidates[0])
	if err != nil {
		return Verbatim{}, err
	}
	for _, vb := range v.Manifest.Verbatim {
		if region == "" || vb.Name == region {
			return vb, nil
		}
	}
	if len(v.Manifest.Verbatim) == 0 {
		return Verbatim{}, usage("variant %s declares no verbatim region", v.Name)
	}
	return Verbatim{}, usage("variant %s has no verbatim region %q", v.Name, region)
}

// Verbatim returns the manifest's verbatim region of that name.
func (v *Variant) Verbatim(name string) Verbatim { return v.verbatimByName(name) }
