// Package rules applies a manifest's input rules: what a JSON Schema cannot
// say, such as "every override names a tool the parent has". Values are
// compared with input.Equal, the engine's one equality, through maps keyed
// by input.Key, so a rule costs time linear in the values it compares.
package rules

import (
	"fmt"
	"strings"

	"github.com/promptsmith/promptsmith/internal/input"
	"github.com/promptsmith/promptsmith/internal/manifest"
	"github.com/promptsmith/promptsmith/internal/phrase"
	"github.com/promptsmith/promptsmith/internal/pointer"
	"github.com/promptsmith/promptsmith/internal/problem"
)

// Checker applies one variant's rules.
type Checker struct {
	Rules    manifest.Rules
	Verbatim []manifest.Verbatim
	// Choices lists, per template_choice field, the values there are templates for.
	Choices map[string][]string
	// SectionPaths gives the SectionPaths of a verbatim field's text.
	SectionPaths func(text string, vb manifest.Verbatim) []string
}

// Check returns the first rule the input breaks, as an input error.
func (c *Checker) Check(doc *input.Document) error {
	root := doc.Root
	// The values are compared first; pointers and the list of known values
	// are built only for the message of a rule that breaks.
	for _, pattern := range c.Rules.Unique {
		seen := map[string]int{}
		for i, m := range pointer.MatchValues(root, pattern, doc.Keys) {
			key := input.Key(m.Value)
			if first, dup := seen[key]; dup {
				all := pointer.MatchAll(root, pattern, doc.Keys)
				return problem.Input(all[i].Pointer, "%s repeats the value of %s", input.Short(m.Value, doc.Order()), all[first].Pointer).
					Hint("values at %s must be unique", pattern)
			}
			seen[key] = i
		}
	}
	for _, ref := range c.Rules.References {
		known := map[string]bool{}
		for _, m := range pointer.MatchValues(root, ref.In, doc.Keys) {
			known[input.Key(m.Value)] = true
		}
		for i, m := range pointer.MatchValues(root, ref.Field, doc.Keys) {
			if known[input.Key(m.Value)] {
				continue
			}
			var shown []string
			for _, k := range pointer.MatchValues(root, ref.In, doc.Keys) {
				shown = append(shown, fmt.Sprint(k.Value))
			}
			e := problem.Input(pointer.MatchAll(root, ref.Field, doc.Keys)[i].Pointer, "%s is not one of the values at %s", input.Short(m.Value, doc.Order()), ref.In)
			if near := phrase.Closest(fmt.Sprint(m.Value), shown); near != "" {
				e.Hint("did you mean %q?", near)
			}
			if len(shown) > 0 {
				e.Hint("the values there are: %s", strings.Join(shown, ", "))
			} else {
				e.Hint("%s is empty", ref.In)
			}
			return e
		}
	}
	for _, tc := range c.Rules.TemplateChoice {
		if err := c.checkChoice(doc, tc); err != nil {
			return err
		}
	}
	for _, ref := range c.Rules.SectionRefs {
		if err := c.checkSectionRefs(doc, ref); err != nil {
			return err
		}
	}
	return nil
}

func (c *Checker) checkChoice(doc *input.Document, tc manifest.TemplateChoice) error {
	val, ok := pointer.Lookup(doc.Root, tc.Field)
	if !ok || val == nil {
		return nil
	}
	names := c.Choices[tc.Field]
	s, isStr := val.(string)
	for _, n := range names {
		if isStr && n == s {
			return nil
		}
	}
	e := problem.Input(tc.Field, "unknown value %s", input.Short(val, doc.Order()))
	if isStr {
		if near := phrase.Closest(s, names); near != "" {
			e.Hint("did you mean %q?", near)
		}
	}
	return e.Hint("the values there are: %s (one template each, %s)", strings.Join(names, ", "), tc.Templates)
}

// checkSectionRefs makes sure a reference such as "Safety > Production"
// names a heading path that the referenced document really has.
func (c *Checker) checkSectionRefs(doc *input.Document, ref manifest.SectionRef) error {
	var vb manifest.Verbatim
	for _, v := range c.Verbatim {
		if v.Name == ref.Verbatim {
			vb = v
		}
	}
	var paths []string
	var have map[string]bool
	for _, m := range pointer.MatchAll(doc.Root, ref.Field, doc.Keys) {
		s, ok := m.Value.(string)
		if !ok || strings.Contains(s, "://") {
			continue
		}
		if have == nil {
			field, _ := pointer.Lookup(doc.Root, vb.Field)
			text, _ := field.(string)
			paths = c.SectionPaths(text, vb)
			have = make(map[string]bool, len(paths))
			for _, p := range paths {
				have[p] = true
			}
		}
		if have[s] {
			continue
		}
		e := problem.Input(m.Pointer, "%s is not a SectionPath of %s", phrase.Quote(s), vb.Field)
		if near := phrase.Closest(s, paths); near != "" {
			e.Hint("did you mean %q?", near)
		}
		if len(paths) == 0 {
			return e.Hint("%s has no headings; refer to it with a link, or leave the reference out", vb.Field)
		}
		return e.Hint("its SectionPaths are: %s", strings.Join(paths[:min(len(paths), 20)], "; "))
	}
	return nil
}
