package engine

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/promptsmith/promptsmith/internal/lint"
	"github.com/promptsmith/promptsmith/internal/manifest"
)

// A provider caches a prompt's exact prefix. The manifest's cache: says
// which input fields change between requests (volatile) and after which
// sections a cache breakpoint goes; this file derives from the templates
// which sections read a volatile field (CacheReport), places the
// breakpoints in a rendered prompt (Result.Breakpoints), and lint refuses
// a breakpoint whose prefix reads a volatile field.

// CacheReport says where a variant's cacheable prefix ends, and why: the
// first section, in the manifest's order, whose template (or a partial it
// includes) reads a volatile field.
type CacheReport struct {
	Variant string `json:"variant"`
	// Declared is set when the manifest has cache:; without it nothing is
	// known to change between requests.
	Declared    bool     `json:"declared"`
	Volatile    []string `json:"volatile,omitempty"`
	Breakpoints []string `json:"breakpoints,omitempty"`
	// Stable are the sections before the first volatile read: the prefix
	// a provider can cache, whatever the input.
	Stable []string `json:"stable"`
	// First is the first volatile read; nil when no section reads one.
	First *VolatileRead `json:"first_volatile,omitempty"`
	// Reads are the first volatile read of each section that makes one.
	Reads []VolatileRead `json:"reads,omitempty"`
	// Stranded are the sections after First that read nothing volatile,
	// yet are not cached because of the order of sections.
	Stranded []string `json:"stranded,omitempty"`
	// Position is where lint shows the report: the first volatile read,
	// or the manifest.
	Position string `json:"position"`
}

// VolatileRead is a section's read of a volatile field, at the
// template's file:line:col.
type VolatileRead struct {
	Section string `json:"section"`
	// Field is the volatile pointer (cache.volatile) the read depends on;
	// Read the field the template reads.
	Field    string `json:"field"`
	Read     string `json:"read"`
	Position string `json:"position"`
}

// lintTemplates is what lint needs of the variant.
func (v *Variant) lintTemplates() lint.Templates {
	extra := slices.Sorted(maps.Keys(v.manifest.IDs))
	if len(v.manifest.Budget) > 0 {
		extra = append(extra, "budget")
	}
	rootData := func(name string) bool {
		if strings.HasPrefix(name, "prompt.yaml ") || slices.Contains(v.choiceFiles, name) {
			return true
		}
		return slices.Contains(v.manifest.Sections, strings.TrimSuffix(name, ".md.tmpl")) && strings.HasSuffix(name, ".md.tmpl")
	}
	return lint.Templates{
		Set:        v.tmpl,
		Dir:        v.dir,
		Root:       v.schema.Root(),
		Extra:      extra,
		RootData:   rootData,
		Section:    func(name string) bool { return rootData(name) && strings.HasSuffix(name, ".md.tmpl") },
		Variant:    v.name,
		SchemaFile: v.schemaFile(),
		Text: func(name string) (string, bool) {
			src, ok := v.sources[name]
			return src, ok
		},
	}
}

// volatileFields are the pointers a read may depend on to change between
// requests: cache.volatile, and /<id> for each id hashed from one of them.
func (v *Variant) volatileFields() map[string]string {
	out := map[string]string{}
	if v.manifest.Cache == nil {
		return out
	}
	for _, p := range v.manifest.Cache.Volatile {
		out[p] = p
	}
	for _, name := range slices.Sorted(maps.Keys(v.manifest.IDs)) {
		for _, of := range v.manifest.IDs[name].Of {
			for _, p := range v.manifest.Cache.Volatile {
				if lint.Touches(of, true, p) {
					out["/"+name] = p
				}
			}
		}
	}
	return out
}

// CacheReport derives, from the templates and the partials they include,
// which sections read a volatile field, and so where the variant's
// cacheable prefix ends.
func (v *Variant) CacheReport() CacheReport {
	rep := CacheReport{Variant: v.name, Stable: []string{}, Position: v.dir + "/prompt.yaml"}
	if c := v.manifest.Cache; c != nil {
		rep.Declared = true
		rep.Volatile, rep.Breakpoints = c.Volatile, c.Breakpoints
		if c.Line > 0 {
			rep.Position = fmt.Sprintf("%s:%d", rep.Position, c.Line)
		}
	}
	vol := v.volatileFields()
	if len(vol) == 0 {
		rep.Stable = slices.Clone(v.manifest.Sections)
		return rep
	}
	first := map[string]VolatileRead{}
	for _, r := range lint.Reads(v.lintTemplates()) {
		section, ok := strings.CutSuffix(r.Template, ".md.tmpl")
		if !ok || !slices.Contains(v.manifest.Sections, section) {
			continue
		}
		if _, seen := first[section]; seen {
			continue
		}
		for _, p := range slices.Sorted(maps.Keys(vol)) {
			if lint.Touches(r.Path, r.Whole, p) {
				first[section] = VolatileRead{Section: section, Field: vol[p], Read: readText(r.Path), Position: r.Position}
				break
			}
		}
	}
	for _, s := range v.manifest.Sections {
		r, ok := first[s]
		switch {
		case ok:
			rep.Reads = append(rep.Reads, r)
			if rep.First == nil {
				rep.First = &r
				rep.Position = r.Position
			}
		case rep.First == nil:
			rep.Stable = append(rep.Stable, s)
		default:
			rep.Stranded = append(rep.Stranded, s)
		}
	}
	return rep
}

// what says what the read is: the volatile field, or what holds it.
func (r VolatileRead) what() string {
	if r.Read == r.Field {
		return r.Field + ", which cache.volatile lists"
	}
	return fmt.Sprintf("%s, which depends on %s that cache.volatile lists", r.Read, r.Field)
}

func readText(p string) string {
	if p == "" {
		return "the whole input"
	}
	return p
}

// cacheFindings are lint's errors for the breakpoints whose prefix reads a
// volatile field, one at each such read, naming the breakpoints.
func (v *Variant) cacheFindings(rep CacheReport) []lint.Finding {
	c := v.manifest.Cache
	if c == nil || len(c.Breakpoints) == 0 {
		return nil
	}
	var out []lint.Finding
	for i, u := range v.manifest.Budget {
		if slices.Contains(v.pinnedUnits(), u.Name) {
			pos := v.dir + "/prompt.yaml"
			if line := manifestLine(v.raw, "budget", i); line > 0 {
				pos = fmt.Sprintf("%s:%d", pos, line)
			}
			out = append(out, lint.Finding{Position: pos, Severity: lint.Warning, Kind: lint.KindLint,
				Message: fmt.Sprintf("budget unit %s cuts the prompt before its last cache breakpoint (after %s), so a fit never cuts it; budget what comes after the breakpoint",
					u.Name, c.Breakpoints[len(c.Breakpoints)-1])})
		}
	}
	for _, r := range rep.Reads {
		at := slices.Index(v.manifest.Sections, r.Section)
		var after []string
		for i, b := range c.Breakpoints {
			if slices.Index(v.manifest.Sections, b) >= at {
				after = append(after, fmt.Sprintf("%s (%s:%d)", b, v.dir+"/prompt.yaml", c.BreakpointLine(i)))
			}
		}
		if len(after) == 0 {
			continue
		}
		out = append(out, lint.Finding{Position: r.Position, Severity: lint.Error, Kind: lint.KindLint,
			Message: fmt.Sprintf("section %s reads %s, before the cache breakpoint after %s: the prefix a provider caches would change on every request; move the breakpoint before %s, or read %s after it",
				r.Section, r.what(), strings.Join(after, ", "), r.Section, r.Field)})
	}
	return out
}

// Info is lint's report of the cacheable prefix, in words: where it ends
// and why, or that the variant declares nothing.
func (rep CacheReport) Info() string {
	var b strings.Builder
	switch {
	case !rep.Declared:
		fmt.Fprintf(&b, "%s declares no cache:, so nothing is known to change between requests and no breakpoint is set; list the fields that do under cache.volatile and the sections to cache after under cache.breakpoints", rep.Variant)
		return b.String()
	case len(rep.Volatile) == 0:
		fmt.Fprintf(&b, "%s: no input field changes between requests (cache.volatile is empty): the whole prompt is a cacheable prefix", rep.Variant)
	case rep.First == nil:
		fmt.Fprintf(&b, "%s: no section reads a volatile field (%s): the whole prompt is a cacheable prefix", rep.Variant, strings.Join(rep.Volatile, ", "))
	default:
		stable := "no section"
		if len(rep.Stable) > 0 {
			stable = strings.Join(rep.Stable, ", ")
		}
		fmt.Fprintf(&b, "%s: the cacheable prefix is %s; it ends before section %s, which reads %s here",
			rep.Variant, stable, rep.First.Section, rep.First.what())
		if len(rep.Reads) > 1 {
			// Every section that reads one, so that a volatile section the
			// order puts early (a clock before the agent's state) is named
			// too, not only the first.
			var reads []string
			for _, r := range rep.Reads {
				reads = append(reads, fmt.Sprintf("%s (%s at %s)", r.Section, r.Read, r.Position))
			}
			fmt.Fprintf(&b, "; the sections that read a volatile field: %s", strings.Join(reads, ", "))
		}
		if len(rep.Stranded) > 0 {
			fmt.Fprintf(&b, "; %s read nothing volatile but come after it in the sections' order, so no provider caches them",
				strings.Join(rep.Stranded, ", "))
		}
	}
	if len(rep.Breakpoints) > 0 {
		fmt.Fprintf(&b, "; breakpoints after %s", strings.Join(rep.Breakpoints, ", "))
	} else {
		b.WriteString("; no breakpoint is declared")
	}
	return b.String()
}

// unitsInPrefix are the budget units whose cut changes the prompt before
// its last breakpoint: a section at or before it, or a field a section
// at or before it reads (or the budget's own counts, read there).
func (v *Variant) unitsInPrefix() []string {
	idx := v.manifest.BreakpointIndexes()
	if len(idx) == 0 || len(v.manifest.Budget) == 0 {
		return nil
	}
	last := idx[len(idx)-1]
	inPrefix := func(section string) bool {
		i := slices.Index(v.manifest.Sections, section)
		return i >= 0 && i <= last
	}
	var reads []lint.Read
	for _, r := range lint.Reads(v.lintTemplates()) {
		if s, ok := strings.CutSuffix(r.Template, ".md.tmpl"); ok && inPrefix(s) {
			reads = append(reads, r)
		}
	}
	var out []string
	for _, u := range v.manifest.Budget {
		pinned := u.Section != "" && inPrefix(u.Section)
		for _, r := range reads {
			pinned = pinned || (u.Field() != "" && lint.Touches(r.Path, r.Whole, u.Field())) || lint.Touches(r.Path, r.Whole, "/budget/omitted/"+u.Name)
		}
		if pinned {
			out = append(out, u.Name)
		}
	}
	return out
}

// cuttable are the budget units a fit may cut: all but the pinned.
func (v *Variant) cuttable() []manifest.Unit {
	if len(v.pinnedUnits()) == 0 {
		return v.manifest.Budget
	}
	var out []manifest.Unit
	for _, u := range v.manifest.Budget {
		if !slices.Contains(v.pinnedUnits(), u.Name) {
			out = append(out, u)
		}
	}
	return out
}
