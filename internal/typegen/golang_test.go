package typegen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/promptsmith/promptsmith/internal/input"
	"github.com/promptsmith/promptsmith/internal/testing/fixture"
)

// TestGoTypesRoundTrip writes the Go types of every variant into a module
// of their own, compiles a program that decodes every example of every
// variant into its root type (unknown keys refused) and encodes it again,
// and checks that each comes back as the same JSON value.
func TestGoTypesRoundTrip(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	lib := fixture.Library(t)
	dir := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/roundtrip\n\ngo 1.22\n")
	var imports, cases strings.Builder
	want := map[string][]byte{} // file → the example as JSON
	for _, name := range lib.Names() {
		v := fixture.Variant(t, name)
		src, err := Generate(Go, name, v.SchemaJSON())
		if err != nil {
			t.Fatal(err)
		}
		pkg := goPackage(name)
		write(pkg+"/input.go", string(src))
		fmt.Fprintf(&imports, "\t%q\n", "example.com/roundtrip/"+pkg)
		fmt.Fprintf(&cases, "\tcase %q:\n\t\treturn roundTrip[%s.%s](data)\n", name, pkg, RootName(name))
		for _, ex := range examples(t, v) {
			file := filepath.Join(dir, "examples", name+"."+ex.name+".json")
			data := input.AppendJSON(nil, ex.doc.Root, ex.doc.Order(), false)
			write(strings.TrimPrefix(file, dir+"/"), string(data))
			want[file] = data
		}
	}
	write("main.go", `package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

`+imports.String()+`)

// main round-trips each example file named: variant.example.json → .out.
func main() {
	for _, file := range os.Args[1:] {
		variant, _, _ := strings.Cut(filepath.Base(file), ".")
		data, err := os.ReadFile(file)
		if err == nil {
			data, err = convert(variant, data)
		}
		if err == nil {
			err = os.WriteFile(file+".out", data, 0o644)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, file+":", err)
			os.Exit(1)
		}
	}
}

func convert(variant string, data []byte) ([]byte, error) {
	switch variant {
`+cases.String()+`	}
	return nil, fmt.Errorf("no types for %s", variant)
}

func roundTrip[T any](data []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var v T
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return json.Marshal(v)
}
`)
	var files []string
	for f := range want {
		files = append(files, f)
	}
	vet := exec.Command(goTool, "vet", "./...")
	vet.Dir, vet.Env = dir, append(os.Environ(), "GOFLAGS=", "GOWORK=off")
	if out, err := vet.CombinedOutput(); err != nil {
		t.Fatalf("go vet of the generated types: %v\n%s", err, out)
	}
	run := exec.Command(goTool, append([]string{"run", "."}, files...)...)
	run.Dir, run.Env = dir, append(os.Environ(), "GOFLAGS=", "GOWORK=off")
	if out, err := run.CombinedOutput(); err != nil {
		t.Fatalf("the round trip: %v\n%s", err, out)
	}
	for file, in := range want {
		out, err := os.ReadFile(file + ".out")
		if err != nil {
			t.Fatal(err)
		}
		if a, b := jsonValue(t, in), jsonValue(t, out); !reflect.DeepEqual(a, b) {
			t.Errorf("%s: round trip changed the input\n in: %s\nout: %s", filepath.Base(file), in, out)
		}
	}
	t.Logf("%d examples of %d variants round-tripped", len(want), len(lib.Names()))
}

func jsonValue(t *testing.T, data []byte) any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("%v: %s", err, data)
	}
	return v
}
