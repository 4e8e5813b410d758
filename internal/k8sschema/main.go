// Command k8sschema writes the JSON Schemas kubeconform validates
// Kubernetes objects against, in its layout
// (DIR/{kind}-{group}-{version}.json), from the Kubernetes OpenAPI v2
// document a release ships (api/openapi-spec/swagger.json of the
// k8s.io/kubernetes module) and from CustomResourceDefinitions (the
// prometheus-operator's ServiceMonitor), so that .ci/run validates
// deploy/kubernetes without reaching the schemas' usual host:
//
//	go run ./internal/k8sschema -swagger swagger.json -crd servicemonitors.yaml -out DIR
//	kubeconform -strict -schema-location 'DIR/{{ .ResourceKind }}{{ .KindSuffix }}.json' ...
//
// Each schema is standalone (every $ref inlined) and strict: an object
// that lists its properties admits no others, as kubeconform -strict
// expects, so that a misspelt field fails. A quantity or an int-or-string
// takes a string or a number, as the API server does.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"gopkg.in/yaml.v3"
)

// crds are the -crd files, repeatable.
type crds []string

func (c *crds) String() string     { return strings.Join(*c, ",") }
func (c *crds) Set(v string) error { *c = append(*c, v); return nil }

func main() {
	swagger := flag.String("swagger", "", "the Kubernetes OpenAPI v2 document (api/openapi-spec/swagger.json)")
	out := flag.String("out", "", "the folder to write the schemas to")
	var files crds
	flag.Var(&files, "crd", "a CustomResourceDefinition (YAML) whose versions' schemas to write; repeatable")
	flag.Parse()
	if *swagger == "" || *out == "" {
		fmt.Fprintln(os.Stderr, "k8sschema: give -swagger FILE and -out DIR")
		os.Exit(2)
	}
	n, err := run(*swagger, files, *out)
	if err != nil {
		fmt.Fprintln(os.Stderr, "k8sschema:", err)
		os.Exit(1)
	}
	fmt.Printf("k8sschema: %d schemas in %s\n", n, *out)
}

func run(swagger string, crdFiles []string, out string) (int, error) {
	data, err := os.ReadFile(swagger)
	if err != nil {
		return 0, err
	}
	var doc struct {
		Definitions map[string]map[string]any `json:"definitions"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return 0, fmt.Errorf("%s: %v", swagger, err)
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return 0, err
	}
	n := 0
	for name, def := range doc.Definitions {
		gvks, _ := def["x-kubernetes-group-version-kind"].([]any)
		for _, g := range gvks {
			gvk, _ := g.(map[string]any)
			group, _ := gvk["group"].(string)
			kind, _ := gvk["kind"].(string)
			version, _ := gvk["version"].(string)
			schema := inline(def, doc.Definitions, map[string]bool{name: true})
			if err := write(out, kind, group, version, schema); err != nil {
				return n, err
			}
			n++
		}
	}
	for _, f := range crdFiles {
		m, err := writeCRD(f, out)
		if err != nil {
			return n, err
		}
		n += m
	}
	return n, nil
}

// inline is v with every $ref to a definition replaced by the definition
// (one on the path already, a recursive type, by {}), made strict.
func inline(v any, defs map[string]map[string]any, path map[string]bool) any {
	switch x := v.(type) {
	case map[string]any:
		if ref, ok := x["$ref"].(string); ok {
			name := strings.TrimPrefix(ref, "#/definitions/")
			switch name {
			case "io.k8s.apimachinery.pkg.util.intstr.IntOrString":
				return map[string]any{"oneOf": []any{map[string]any{"type": "string"}, map[string]any{"type": "integer"}}}
			case "io.k8s.apimachinery.pkg.api.resource.Quantity":
				return map[string]any{"oneOf": []any{map[string]any{"type": "string"}, map[string]any{"type": "number"}}}
			}
			def, ok := defs[name]
			if !ok || path[name] {
				return map[string]any{}
			}
			path[name] = true
			defer delete(path, name)
			return inline(def, defs, path)
		}
		out := map[string]any{}
		for k, e := range x {
			switch k {
			case "description", "x-kubernetes-group-version-kind":
				continue // size, not validation
			case "properties", "patternProperties", "definitions":
				props := map[string]any{}
				for pk, pv := range e.(map[string]any) {
					props[pk] = inline(pv, defs, path)
				}
				out[k] = props
				continue
			}
			out[k] = inline(e, defs, path)
		}
		strict(out)
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = inline(e, defs, path)
		}
		return out
	}
	return v
}

// strict makes an object schema that lists its properties admit no
// others, unless it says what the others may be.
func strict(s map[string]any) {
	_, props := s["properties"]
	_, extra := s["additionalProperties"]
	_, preserve := s["x-kubernetes-preserve-unknown-fields"]
	if props && !extra && !preserve {
		s["additionalProperties"] = false
	}
	// The document's null-able fields come as absent; a field that says
	// it is nullable takes null too.
	if s["nullable"] == true {
		if t, ok := s["type"].(string); ok {
			s["type"] = []any{t, "null"}
		}
	}
}

// write writes one kind's schema as kubeconform names it.
func write(out, kind, group, version string, schema any) error {
	name := strings.ToLower(kind)
	if group != "" {
		name += "-" + strings.ToLower(strings.Split(group, ".")[0])
	}
	name += "-" + strings.ToLower(version) + ".json"
	data, err := json.Marshal(schema)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(out, name), data, 0o644)
}

// writeCRD writes the schema of each version of a
// CustomResourceDefinition, with the apiVersion, kind and metadata every
// object has.
func writeCRD(path, out string) (int, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	var crd struct {
		Spec struct {
			Group string `yaml:"group"`
			Names struct {
				Kind string `yaml:"kind"`
			} `yaml:"names"`
			Versions []struct {
				Name   string `yaml:"name"`
				Schema struct {
					OpenAPIV3Schema map[string]any `yaml:"openAPIV3Schema"`
				} `yaml:"schema"`
			} `yaml:"versions"`
		} `yaml:"spec"`
	}
	if err := yaml.Unmarshal(data, &crd); err != nil {
		return 0, fmt.Errorf("%s: %v", path, err)
	}
	n := 0
	for _, v := range crd.Spec.Versions {
		s := inline(v.Schema.OpenAPIV3Schema, nil, map[string]bool{}).(map[string]any)
		props, _ := s["properties"].(map[string]any)
		if props != nil {
			props["apiVersion"] = map[string]any{"type": "string"}
			props["kind"] = map[string]any{"type": "string"}
			if _, ok := props["metadata"]; !ok {
				props["metadata"] = map[string]any{"type": "object"}
			}
		}
		if err := write(out, crd.Spec.Names.Kind, crd.Spec.Group, v.Name, s); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}
