package engine

import "strings"

// defaults is the part of a schema that fills in missing fields: the "default"
// of every property, reached through properties, items, additionalProperties,
// allOf and $ref. It is built once per schema, so that templates can refer to
// optional fields without guarding each one (templates run with
// missingkey=error).
type defaults struct {
	props      []propDefault
	items      *defaults
	additional *defaults
}

type propDefault struct {
	name  string
	value any
	has   bool
	child *defaults
}

func (s *schemaSet) defaultsFor(name string) *defaults {
	return s.buildDefaults(schemaURL+name+".schema.json", "", map[string]*defaults{})
}

func (s *schemaSet) buildDefaults(url, ptr string, memo map[string]*defaults) *defaults {
	key := url + "#" + ptr
	if d, ok := memo[key]; ok {
		return d
	}
	node, ok := s.node(url, ptr)
	if !ok {
		return nil
	}
	d := &defaults{}
	memo[key] = d
	if ref, ok := node["$ref"].(string); ok {
		rurl, rptr := url, ref
		if file, frag, found := strings.Cut(ref, "#"); found {
			if file != "" {
				rurl = schemaURL + file
			}
			rptr = frag
		} else {
			rurl, rptr = schemaURL+ref, ""
		}
		d.merge(s.buildDefaults(rurl, rptr, memo))
	}
	if all, ok := node["allOf"].([]any); ok {
		for i := range all {
			d.merge(s.buildDefaults(url, ptr+"/allOf/"+itoa(i), memo))
		}
	}
	if props, ok := node["properties"].(map[string]any); ok {
		for _, name := range orderedKeys(props) {
			p := propDefault{name: name}
			if pm, ok := props[name].(map[string]any); ok {
				p.value, p.has = pm["default"]
				p.child = s.buildDefaults(url, ptr+"/properties/"+escapePointer(name), memo)
			}
			if p.has || !p.child.empty() {
				d.props = append(d.props, p)
			}
		}
	}
	if _, ok := node["items"].(map[string]any); ok {
		d.items = s.buildDefaults(url, ptr+"/items", memo)
	}
	if _, ok := node["additionalProperties"].(map[string]any); ok {
		d.additional = s.buildDefaults(url, ptr+"/additionalProperties", memo)
	}
	return d
}

func (d *defaults) merge(o *defaults) {
	if o == nil || o == d {
		return
	}
	d.props = append(d.props, o.props...)
	if d.items == nil {
		d.items = o.items
	}
	if d.additional == nil {
		d.additional = o.additional
	}
}

func (d *defaults) empty() bool {
	return d == nil || (len(d.props) == 0 && d.items == nil && d.additional == nil)
}

// apply fills in defaults in place, depth first, recording new keys' order.
func (d *defaults) apply(v any, rec *orderRecorder, depth int) {
	if d.empty() || depth > 64 {
		return
	}
	switch c := v.(type) {
	case map[string]any:
		for _, p := range d.props {
			if _, ok := c[p.name]; !ok && p.has {
				c[p.name] = copyValue(p.value, rec)
				rec.appendKey(c, p.name)
			}
			if p.child != nil {
				if child, ok := c[p.name]; ok {
					p.child.apply(child, rec, depth+1)
				}
			}
		}
		if d.additional != nil {
			for k, child := range c {
				if !d.hasProp(k) {
					d.additional.apply(child, rec, depth+1)
				}
			}
		}
	case []any:
		if d.items != nil {
			for _, e := range c {
				d.items.apply(e, rec, depth+1)
			}
		}
	}
}

func (d *defaults) hasProp(name string) bool {
	for _, p := range d.props {
		if p.name == name {
			return true
		}
	}
	return false
}

// copyValue deep-copies a default so that renders never share mutable state.
func copyValue(v any, rec *orderRecorder) any {
	switch c := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(c))
		keys := orderedKeys(c)
		for _, k := range keys {
			m[k] = copyValue(c[k], rec)
		}
		rec.record(m, keys)
		return m
	case []any:
		l := make([]any, len(c))
		for i, e := range c {
			l[i] = copyValue(e, rec)
		}
		return l
	}
	return v
}
