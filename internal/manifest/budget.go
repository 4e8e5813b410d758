package manifest

import (
	"fmt"
	"slices"
	"strings"

	"github.com/promptsmith/promptsmith/internal/pointer"
	"github.com/promptsmith/promptsmith/internal/problem"
)

// Unit is one thing a budget may cut to fit a prompt to a number of
// tokens: a whole optional section, items of a list field, or the end of a
// text field. Units are cut in order of Priority, lowest first (higher is
// kept longer); of units with the same priority the one declared last is
// cut first, so that cuts start at the end of the prompt, where they leave
// the longest prefix unchanged.
type Unit struct {
	// Name is how templates (.budget.omitted.<name>) and the Result call
	// the unit; it defaults to the section's name or the field's last token.
	Name     string `yaml:"name" json:"name,omitempty"`
	Priority int    `yaml:"priority" json:"priority"`
	// Section names a section dropped whole, with the joiner before it.
	Section string `yaml:"section" json:"section,omitempty"`
	// List is the JSON pointer of a list field cut one item at a time.
	List string `yaml:"list" json:"list,omitempty"`
	// Text is the JSON pointer of a text field cut from its end.
	Text string `yaml:"text" json:"text,omitempty"`
	// Drop says which items of a list go first: oldest or newest (by the
	// time in field By), lowest or highest (by the number in field By),
	// first or last (the default).
	Drop string `yaml:"drop" json:"drop,omitempty"`
	By   string `yaml:"by" json:"by,omitempty"`
	// Where limits a list unit to the items whose fields equal these
	// values, so that one list can be cut at two priorities.
	Where map[string]any `yaml:"where" json:"where,omitempty"`
	// Keep is the number of items (list) or characters (text) never cut.
	Keep int `yaml:"keep" json:"keep,omitempty"`
	// Marker ends a cut text; it defaults to DefaultMarker.
	Marker *string `yaml:"marker" json:"marker,omitempty"`
}

// DefaultMarker ends a text a budget cut.
const DefaultMarker = "…[truncated]"

// UnitKind is what a budget unit cuts: a whole section, items of a list,
// or the end of a text.
type UnitKind string

const (
	UnitSection UnitKind = "section"
	UnitList    UnitKind = "list"
	UnitText    UnitKind = "text"
)

// Kind is what the unit cuts, by which of section, list and text it names.
func (u Unit) Kind() UnitKind {
	switch {
	case u.Section != "":
		return UnitSection
	case u.List != "":
		return UnitList
	}
	return UnitText
}

// Field is the pointer of a list or text unit.
func (u Unit) Field() string { return u.List + u.Text }

// MarkerText is what ends a cut text.
func (u Unit) MarkerText() string {
	if u.Marker == nil {
		return DefaultMarker
	}
	return *u.Marker
}

// checkBudget refuses units that could not work, or that would cut what
// must stay: a verbatim field, or (for the engine to check against the
// templates) a section that writes a required heading.
func (m *Manifest) checkBudget(file string) error {
	names := map[string]bool{}
	for i := range m.Budget {
		u := &m.Budget[i]
		fail := func(format string, args ...any) *problem.Error {
			return problem.Template(file, "budget[%d]: %s", i, fmt.Sprintf(format, args...))
		}
		set := 0
		for _, s := range []string{u.Section, u.List, u.Text} {
			if s != "" {
				set++
			}
		}
		if set != 1 {
			return fail("a unit is exactly one of section:, list: or text:").
				Hint("section: NAME drops a section, list: /pointer cuts items, text: /pointer cuts characters")
		}
		if u.Name == "" {
			u.Name = u.Section
			if toks := pointer.Split(u.Field()); len(toks) > 0 {
				u.Name = toks[len(toks)-1]
			}
		}
		if names[u.Name] {
			return fail("a second unit is named %q", u.Name).Hint("give one of them a name: of its own")
		}
		names[u.Name] = true
		if u.Section != "" && !slices.Contains(m.Sections, u.Section) {
			return fail("section %q is not one of the sections", u.Section)
		}
		if f := u.Field(); f != "" {
			if !strings.HasPrefix(f, "/") || slices.Contains(pointer.Split(f), "*") {
				return fail("%q must be the JSON pointer of one field", f)
			}
			for _, vb := range m.Verbatim {
				if f == vb.Field || strings.HasPrefix(vb.Field, f+"/") || strings.HasPrefix(f, vb.Field+"/") {
					return fail("%s holds the verbatim field %s, which is never cut", f, vb.Field).
						Hint("a verbatim field is embedded whole or the render is refused; budget other fields")
				}
			}
		}
		if u.Keep < 0 {
			return fail("keep must not be negative")
		}
		switch u.Kind() {
		case UnitList:
			switch u.Drop {
			case "", "first", "last":
				if u.By != "" {
					return fail("by: applies to drop: oldest, newest, lowest or highest")
				}
			case "oldest", "newest", "lowest", "highest":
				if u.By == "" {
					return fail("drop: %s needs by: the item field to compare", u.Drop)
				}
			default:
				return fail("drop %q is not one of oldest, newest, lowest, highest, first, last", u.Drop)
			}
		default:
			if u.Drop != "" || u.By != "" || u.Where != nil {
				return fail("drop:, by: and where: apply to list units only")
			}
		}
		if u.Marker != nil && u.Kind() != UnitText {
			return fail("marker: applies to text units only")
		}
		if u.Kind() == UnitSection && u.Keep != 0 {
			return fail("keep: applies to list and text units only")
		}
	}
	return nil
}
