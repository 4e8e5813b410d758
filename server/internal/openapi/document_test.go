package openapi

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/promptsmith/promptsmith/internal/testing/fixture"
)

type body struct {
	Message string `json:"message"`
}

// A route the server serves without saying what it is cannot make a
// document: each endpoint is described or the document fails.
func TestBuildRefusesARouteWithoutAnOperation(t *testing.T) {
	c := Config{Library: fixture.Library(t), ErrorBody: reflect.TypeFor[body]()}
	_, err := Build(c, []Route{{Method: "GET", Path: "/v1/thing"}})
	if err == nil || !strings.Contains(err.Error(), "GET /v1/thing") {
		t.Fatalf("err = %v, want one naming the route", err)
	}
}

// A route listed per variant becomes one operation for each, named for
// code generators, and the label parameters come only with labels.
func TestBuildListsARoutePerVariant(t *testing.T) {
	lib := fixture.Library(t)
	op := Operation{Summary: "Render", PerVariant: "render", Body: InputRequest, Labelled: true,
		Replies: []Reply{JSONReply(200, "The body.", TypeOf[body]())}}
	for _, labels := range []bool{false, true} {
		out, err := Build(Config{Library: lib, Labels: labels, ErrorBody: reflect.TypeFor[body]()},
			[]Route{{Method: "POST", Path: "/v1/render/{variant}", Op: op}})
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Paths map[string]map[string]struct {
				OperationID string           `json:"operationId"`
				Parameters  []map[string]any `json:"parameters"`
			} `json:"paths"`
		}
		if err := json.Unmarshal(out, &doc); err != nil {
			t.Fatal(err)
		}
		for _, name := range lib.Names() {
			post, ok := doc.Paths["/v1/render/"+name]["post"]
			if !ok {
				t.Fatalf("labels %v: no operation for %s in %s", labels, name, out)
			}
			if want := "render" + typeNameOf(name); post.OperationID != want {
				t.Errorf("operationId = %q, want %q", post.OperationID, want)
			}
			if got := len(post.Parameters) > 0; got != labels {
				t.Errorf("labels %v: parameters %v", labels, post.Parameters)
			}
		}
	}
}

// TestGeneratorDefaultsAndFreeForm: in the schema generators read, a
// property with a default is not required (the server fills it in), and
// an object that names no properties takes any, rather than nothing.
func TestGeneratorDefaultsAndFreeForm(t *testing.T) {
	schema := map[string]any{"type": "object",
		"required": []any{"name", "mode", "payload"},
		"properties": map[string]any{
			"name":    map[string]any{"type": "string"},
			"mode":    map[string]any{"type": "string", "default": "fast"},
			"payload": map[string]any{"type": "object"},
			"agents":  map[string]any{"type": "object", "additionalProperties": map[string]any{"type": "object"}},
		}}
	out, err := forGenerators(schema, "demo")
	if err != nil {
		t.Fatal(err)
	}
	in := out[inputComponent("demo")].(map[string]any)
	if got := fmt.Sprint(in["required"]); got != "[name payload]" {
		t.Errorf("required %s, want [name payload]: mode has a default", got)
	}
	props := in["properties"].(map[string]any)
	if m := props["mode"].(map[string]any); m["default"] != nil || m["x-default"] != "fast" {
		t.Errorf("a default is x-default, which openapi-typescript does not make required: %v", m)
	}
	if props["payload"].(map[string]any)["additionalProperties"] != true {
		t.Errorf("a free-form object: %v", props["payload"])
	}
	if props["agents"].(map[string]any)["additionalProperties"].(map[string]any)["additionalProperties"] != true {
		t.Errorf("a map of free-form objects: %v", props["agents"])
	}
	if in["additionalProperties"] != true {
		t.Errorf("an object that names its properties and says nothing of others takes them, as JSON Schema reads it: %v", in["additionalProperties"])
	}
}
