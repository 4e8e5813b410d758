package engine

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"text/template"

	"github.com/promptsmith/promptsmith/engine/internal/outline"
	"github.com/promptsmith/promptsmith/engine/internal/rules"
	"github.com/promptsmith/promptsmith/engine/verbatim"
	"github.com/promptsmith/promptsmith/internal/input"
	"github.com/promptsmith/promptsmith/internal/manifest"
	"github.com/promptsmith/promptsmith/internal/phrase"
	"github.com/promptsmith/promptsmith/internal/problem"
	"github.com/promptsmith/promptsmith/internal/schema"
)

// Variant is one prompt family: its manifest, parsed templates, compiled
// schema and examples. It is immutable; its accessors return copies.
//
// What loading computed from the variant's files is in variantFiles, which
// libraries holding the same files may share (ShareVariants); what belongs
// to the library serving it (its options, provenance, the copies its
// renders run) is here.
type Variant struct {
	*variantFiles
	lib *Library
	// rules is the library's own: it reads the SectionPaths cache below.
	rules *rules.Checker
	// sectionPaths caches the SectionPaths of the verbatim fields seen lately.
	sectionPaths outline.PathCache
	// pool holds copies of the templates for renders to execute.
	pool execPool
	// textSize is the size of the last prompt rendered, less its verbatim
	// fields: what the next render's output is sized to before it starts.
	textSize atomic.Int64
}

// variantFiles is what loading a variant computes from its files and
// nothing else: neither the Library nor its options are reachable from
// it, so that one value serves every library whose files (and origin)
// are the same. It never changes once loaded.
type variantFiles struct {
	name     string
	dir      string // "templates/<name>" as the author sees it, for error positions
	manifest *manifest.Manifest
	raw      []byte // prompt.yaml as written, for Manifest's copies
	schema   *schema.Schema
	tmpl     *template.Template
	// sources are the templates' texts by file, for lint's positions.
	sources  map[string]string
	examples map[string]Input
	hash     string // see Provenance
	// choices lists, per template_choice field, the values there are templates for.
	choices map[string][]string
	// choiceFiles are the templates template_choice picks from, run on the whole input.
	choiceFiles []string
	// pinned are the budget units whose cut would change the prompt
	// before its last cache breakpoint: a fit never cuts them.
	// They are worked out when a fit or a cache report first asks, not
	// at load: a render that fits nothing never reads its templates for them.
	pinnedOnce sync.Once
	pinned     []string
	// key is the content key it is shared under (see VariantShare), "" when
	// its library shares nothing.
	key string
	// spare is a copy of the templates made while the schema compiled,
	// for the first Variant of these files that runs under its limits.
	spare atomic.Pointer[execSet]
}

// newVariant makes lib's Variant of files loaded (or shared) for it.
func newVariant(lib *Library, f *variantFiles) *Variant {
	v := &Variant{variantFiles: f, lib: lib}
	m := f.manifest
	v.rules = &rules.Checker{Rules: m.Rules, Verbatim: m.Verbatim, Choices: f.choices, SectionPaths: v.paths}
	// The first render finds a copy of the templates ready, made while
	// the schema compiled or else here, rather than on its way: its
	// function map, bounds and rewritten trees cost several times a warm
	// render. A copy that cannot be made is left to the render, which
	// reports why.
	if set := f.spare.Swap(nil); set != nil && set.env.Limits == v.execLimits() {
		v.pool.put(set)
	} else if set, err := v.newExecSet(); err == nil {
		v.pool.put(set)
	}
	return v
}

// paths gives the SectionPaths of a verbatim field's text, from the cache.
func (v *Variant) paths(text string, vb manifest.Verbatim) []string {
	return v.sectionPaths.Get(text, func() []string {
		regions, _ := verbatim.Of(vb).TopRegions(text)
		return outline.Paths(outline.Of(text, regions))
	})
}

// Name is the variant's name: its folder under templates/.
func (v *Variant) Name() string { return v.name }

// Description is the manifest's one-line description.
func (v *Variant) Description() string { return v.manifest.Description }

// Manifest returns a copy of the variant's manifest, the caller's to change.
func (v *Variant) Manifest() *manifest.Manifest {
	m, _ := manifest.Parse(v.dir+"/prompt.yaml", v.raw)
	if m.Schema == "" {
		m.Schema = v.name
	}
	return m
}

// Examples lists the names of the variant's example inputs, sorted.
func (v *Variant) Examples() []string { return slices.Sorted(maps.Keys(v.examples)) }

// Example returns an example input by name, or a usage error listing them.
func (v *Variant) Example(name string) (Input, error) {
	if in, ok := v.examples[name]; ok {
		return in, nil
	}
	e := &Error{Kind: KindUsage, Variant: v.name, Example: name, Reason: fmt.Sprintf("variant %s has no example %q", v.name, name)}
	if near := phrase.Closest(name, v.Examples()); near != "" {
		e.Hint("did you mean %q?", near)
	}
	return Input{}, e.Hint("the examples are: %s", strings.Join(v.Examples(), ", "))
}

// SchemaJSON returns the variant's JSON Schema, indented, keys as written.
func (v *Variant) SchemaJSON() []byte { return v.schema.JSON() }

// Verbatim returns the manifest's verbatim region of that name.
func (v *Variant) Verbatim(name string) (manifest.Verbatim, bool) {
	return v.manifest.VerbatimNamed(name)
}

// Validate decodes an input and checks it against the variant's schema, as
// the first stage of a render does, without rendering it.
func (v *Variant) Validate(in Input) error {
	doc, err := input.Decode(in, nil)
	if err != nil {
		return err
	}
	defer doc.Release()
	if err := v.schema.Validate(doc); err != nil {
		return err
	}
	return nil
}

// VerbatimRegion picks the verbatim region that extraction reads: the one
// named region of variant, where either may be empty when only one variant,
// or one region, is declared.
func (lib *Library) VerbatimRegion(variant, region string) (manifest.Verbatim, error) {
	var candidates []string
	if variant != "" {
		candidates = []string{variant}
	} else {
		for _, name := range lib.names {
			if v, _ := lib.lookup(name); v != nil && len(v.manifest.Verbatim) > 0 {
				candidates = append(candidates, name)
			}
		}
	}
	switch len(candidates) {
	case 0:
		return manifest.Verbatim{}, problem.Usage("no variant declares a verbatim region to extract")
	case 1:
	default:
		return manifest.Verbatim{}, problem.Usage("several variants declare verbatim regions (%s): name one", strings.Join(candidates, ", "))
	}
	v, err := lib.Variant(candidates[0])
	if err != nil {
		return manifest.Verbatim{}, err
	}
	for _, vb := range v.manifest.Verbatim {
		if region == "" || vb.Name == region {
			return vb, nil
		}
	}
	if len(v.manifest.Verbatim) == 0 {
		return manifest.Verbatim{}, problem.Usage("variant %s declares no verbatim region", v.name)
	}
	return manifest.Verbatim{}, problem.Usage("variant %s has no verbatim region %q", v.name, region)
}

// pinnedUnits are the variant's pinned budget units (see unitsInPrefix).
func (v *Variant) pinnedUnits() []string {
	v.pinnedOnce.Do(func() { v.pinned = v.unitsInPrefix() })
	return v.pinned
}
