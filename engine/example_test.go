package engine_test

import (
	"context"
	"fmt"
	"testing/fstest"

	"github.com/promptsmith/promptsmith/engine"
)

// greeting is a library of one variant: a manifest, a section template and
// the schema of its input.
var greeting = fstest.MapFS{
	"schemas/greeting.schema.json": {Data: []byte(`{
  "type": "object", "required": ["name"], "additionalProperties": false,
  "properties": {
    "name": {"type": "string", "description": "Who the agent is."},
    "tools": {"type": "array", "items": {"type": "string"}, "default": [], "description": "Tools it may call."}
  }
}`)},
	"templates/greeting/prompt.yaml": {Data: []byte("description: A short agent prompt\nsections: [intro]\nchecks:\n  headings: [\"# Agent\"]\n")},
	"templates/greeting/intro.md.tmpl": {Data: []byte("# Agent\n\nYou are {{ .name }}." +
		"{{ with .tools }} You may call {{ join \", \" . }}.{{ end }}\n")},
}

func ExampleLoad() {
	lib, err := engine.Load(greeting)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, name := range lib.Names() {
		v, _ := lib.Variant(name)
		fmt.Println(name+":", v.Description())
	}
	// Output: greeting: A short agent prompt
}

func ExampleLibrary_Render() {
	lib, _ := engine.Load(greeting)
	res, err := lib.Render(context.Background(), "greeting", engine.Input{Name: "in.yaml", Data: []byte("name: Ada\ntools: [search, edit]\n")})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(res.Text)
	fmt.Println(res.Outline[0].Path, res.OK())
	// Output:
	// # Agent
	//
	// You are Ada. You may call search, edit.
	// Agent true
}

func ExampleLibrary_Render_error() {
	lib, _ := engine.Load(greeting)
	_, err := lib.Render(context.Background(), "greeting", engine.Input{Name: "in.yaml", Data: []byte("name: Ada\ntols: [search]\n")})
	e := engine.AsError(err)
	fmt.Println(e.Kind, e.Field, e.Position)
	fmt.Println(e.Reason)
	fmt.Println(e.Hints[0])
	// Output:
	// input /tols in.yaml:2:1
	// unknown field "tols"
	// did you mean "tools"?
}

func ExampleLibrary_RenderValue() {
	lib, _ := engine.Load(greeting)
	type agent struct {
		Name string `json:"name"`
	}
	res, err := lib.RenderValue(context.Background(), "greeting", agent{Name: "Grace"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(res.Text)
	// Output:
	// # Agent
	//
	// You are Grace.
}
