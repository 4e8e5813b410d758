package schema

import (
	"github.com/promptsmith/promptsmith/internal/input"
	"github.com/santhosh-tekuri/jsonschema/v5"
)

// defaults is the part of a schema that fills in missing fields: the
// "default" of every property, reached through properties, items,
// additionalProperties, allOf and $ref. It is built once per schema, so that
// templates can read optional fields without guarding each one (templates
// run with missingkey=error).
type defaults struct {
	props      []propDefault
	items      *defaults
	additional *defaults
}

type propDefault struct {
	name  string
	value any // as written in the schema, in the set's key order
	has   bool
	child *defaults
}

func (s *Set) buildDefaults(sch *jsonschema.Schema, memo map[*jsonschema.Schema]*defaults) *defaults {
	if sch == nil {
		return nil
	}
	if d, ok := memo[sch]; ok {
		return d
	}
	d := &defaults{}
	memo[sch] = d
	d.merge(s.buildDefaults(sch.Ref, memo))
	for _, b := range sch.AllOf {
		d.merge(s.buildDefaults(b, memo))
	}
	for _, name := range s.propertyNames(sch) {
		ps := sch.Properties[name]
		p := propDefault{name: name}
		p.value, p.has = s.rawNode(ps)["default"]
		p.child = s.buildDefaults(ps, memo)
		if p.has || !p.child.empty() {
			d.props = append(d.props, p)
		}
	}
	if sch.Items2020 != nil {
		d.items = s.buildDefaults(sch.Items2020, memo)
	}
	if add, ok := sch.AdditionalProperties.(*jsonschema.Schema); ok {
		d.additional = s.buildDefaults(add, memo)
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

// ApplyDefaults fills in the defaults of missing fields in place, depth
// first; a filled-in key comes after the keys the input wrote.
func (sc *Schema) ApplyDefaults(doc *input.Document) {
	sc.defaults.apply(doc.Root, doc, sc.set.order, 0)
}

func (d *defaults) apply(v any, doc *input.Document, from *input.KeyOrder, depth int) {
	if d.empty() || depth > 64 {
		return
	}
	switch c := v.(type) {
	case map[string]any:
		for _, p := range d.props {
			if _, ok := c[p.name]; !ok && p.has {
				c[p.name] = doc.Copy(p.value, from) // renders never share a default's values
				doc.AppendKey(c, p.name)
			}
			if p.child != nil {
				if child, ok := c[p.name]; ok {
					p.child.apply(child, doc, from, depth+1)
				}
			}
		}
		if d.additional != nil {
			for k, child := range c {
				if !d.hasProp(k) {
					d.additional.apply(child, doc, from, depth+1)
				}
			}
		}
	case []any:
		if d.items != nil {
			for _, e := range c {
				d.items.apply(e, doc, from, depth+1)
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
