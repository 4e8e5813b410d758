package manifest

import (
	"reflect"
	"strings"
)

// FieldNames lists the YAML names of the fields of a manifest type
// ("Manifest", "Unit", "Probe", ...), in declaration order: the words an
// author may write at that level of prompt.yaml.
func FieldNames(typeName string) []string {
	t, ok := types()[typeName]
	if !ok {
		return nil
	}
	var names []string
	for i := range t.NumField() {
		if name, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ","); name != "" && name != "-" {
			names = append(names, name)
		}
	}
	return names
}

// types are the types of prompt.yaml, by their Go name.
func types() map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for _, v := range []any{Manifest{}, IDSpec{}, Verbatim{}, Rules{}, SectionRef{}, Reference{}, TemplateChoice{},
		Checks{}, TextRule{}, Probe{}, Unit{}, BudgetExample{}, Cache{}} {
		t := reflect.TypeOf(v)
		out[t.Name()] = t
	}
	return out
}
