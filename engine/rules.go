package engine

import (
	"crypto/sha256"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// checkRules applies the manifest's input rules: what a JSON Schema cannot
// say, such as "every override names a tool the parent has".
func (v *Variant) checkRules(root map[string]any) error {
	r := v.Manifest.Rules
	for _, pattern := range r.Unique {
		seen := map[string]string{}
		for _, m := range matchAll(root, pattern) {
			key := canonicalKey(m.value)
			if first, dup := seen[key]; dup {
				return inputErr(m.ptr, "%s repeats the value of %s", shortJSON(m.value), first).
					hint("values at %s must be unique", pattern)
			}
			seen[key] = m.ptr
		}
	}
	for _, ref := range r.References {
		var known []string
		for _, m := range matchAll(root, ref.In) {
			known = append(known, fmt.Sprint(m.value))
		}
		for _, m := range matchAll(root, ref.Field) {
			s := fmt.Sprint(m.value)
			if slices.Contains(known, s) {
				continue
			}
			e := inputErr(m.ptr, "%s is not one of the values at %s", shortJSON(m.value), ref.In)
			if near := closest(s, known); near != "" {
				e.hint("did you mean %q?", near)
			}
			if len(known) > 0 {
				e.hint("the values there are: %s", strings.Join(known, ", "))
			} else {
				e.hint("%s is empty", ref.In)
			}
			return e
		}
	}
	for _, c := range r.TemplateChoice {
		val, ok := lookup(root, c.Field)
		if !ok || val == nil {
			continue
		}
		names := v.choices[c.Field]
		if s, isStr := val.(string); isStr && slices.Contains(names, s) {
			continue
		}
		e := inputErr(c.Field, "unknown value %s", shortJSON(val))
		if s, isStr := val.(string); isStr {
			if near := closest(s, names); near != "" {
				e.hint("did you mean %q?", near)
			}
		}
		return e.hint("the values there are: %s (one template each, %s)", strings.Join(names, ", "), c.Templates)
	}
	for _, ref := range r.SectionRefs {
		if err := v.checkSectionRefs(root, ref); err != nil {
			return err
		}
	}
	return nil
}

// checkSectionRefs makes sure a reference such as "Safety > Production"
// names a heading path that the referenced document really has.
func (v *Variant) checkSectionRefs(root map[string]any, ref SectionRef) error {
	var paths []string
	for _, m := range matchAll(root, ref.Field) {
		s, ok := m.value.(string)
		if !ok || strings.Contains(s, "://") {
			continue
		}
		if paths == nil {
			vb := v.verbatimByName(ref.Verbatim)
			doc, _ := lookup(root, vb.Field)
			text, _ := doc.(string)
			paths = v.sectionPaths.get(text, func() []string {
				regions, _ := markers{vb.Start, vb.End}.topRegions(text)
				out := []string{}
				for _, h := range outline(text, regions) {
					out = append(out, h.Path)
				}
				return out
			})
		}
		if slices.Contains(paths, s) {
			continue
		}
		vb := v.verbatimByName(ref.Verbatim)
		e := inputErr(m.ptr, "%q is not a SectionPath of %s", s, vb.Field)
		if near := closest(s, paths); near != "" {
			e.hint("did you mean %q?", near)
		}
		if len(paths) == 0 {
			return e.hint("%s has no headings; refer to it with a link, or leave the reference out", vb.Field)
		}
		return e.hint("its SectionPaths are: %s", strings.Join(paths[:min(len(paths), 20)], "; "))
	}
	return nil
}

// pathCache remembers the SectionPaths of recent documents by their hash. A
// parent that delegates to several subagents sends the same prompt each
// time; parsing a 1 MiB prompt costs far more than hashing it.
type pathCache struct {
	mu      sync.Mutex
	entries map[[32]byte][]string
}

const pathCacheSize = 64

func (c *pathCache) get(text string, compute func() []string) []string {
	key := sha256.Sum256([]byte(text))
	c.mu.Lock()
	paths, ok := c.entries[key]
	c.mu.Unlock()
	if ok {
		return paths
	}
	paths = compute()
	c.mu.Lock()
	if c.entries == nil || len(c.entries) >= pathCacheSize {
		c.entries = map[[32]byte][]string{} // start over rather than track recency
	}
	c.entries[key] = paths
	c.mu.Unlock()
	return paths
}
