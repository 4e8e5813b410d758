package typegen

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/internal/input"
	"github.com/promptsmith/promptsmith/internal/testing/fixture"
)

// The type checkers come from npm; .ci/typecheck-tools installs them and
// prints the variables that name them:
//
//	eval "$(bash .ci/typecheck-tools)"
//	go test ./typegen
//
// Without them the tests below are skipped, except under CI=true, where a
// missing checker fails them.

// tool finds a command: the path in env, else name on the PATH.
func tool(t *testing.T, env, name string) string {
	t.Helper()
	if p := os.Getenv(env); p != "" {
		if _, err := os.Stat(p); err == nil {
			return p
		}
		missing(t, fmt.Sprintf("%s=%s: no such file", env, p))
	}
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	missing(t, fmt.Sprintf("%s is not installed", name))
	return ""
}

func missing(t *testing.T, why string) {
	t.Helper()
	fixture.Missing(t, why+`: run eval "$(bash .ci/typecheck-tools)" to install the type checkers`)
}

// example is one example input of a variant, decoded.
type example struct {
	name string
	doc  *input.Document
}

// examples decodes every example of v.
func examples(t *testing.T, v *engine.Variant) []example {
	t.Helper()
	var out []example
	for _, name := range v.Examples() {
		in, err := v.Example(name)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := input.Decode(input.Input{Name: in.Name, Data: in.Data}, nil)
		if err != nil {
			t.Fatalf("%s: %v", in.Name, err)
		}
		t.Cleanup(doc.Release)
		out = append(out, example{name, doc})
	}
	if len(out) == 0 {
		t.Fatalf("variant %s has no examples", v.Name())
	}
	return out
}

// misspelt returns a copy of ex's root with one top-level key misspelt (its
// last two letters swapped), as a caller's typo would, and that key. The
// copy keeps the key's place.
func misspelt(t *testing.T, ex example) (root map[string]any, keys []string, typo string) {
	t.Helper()
	keys = ex.doc.Keys(ex.doc.Root)
	for i, k := range keys {
		r := []rune(k)
		if len(r) < 3 || r[len(r)-1] == r[len(r)-2] {
			continue
		}
		r[len(r)-1], r[len(r)-2] = r[len(r)-2], r[len(r)-1]
		typo = string(r)
		if _, taken := ex.doc.Root[typo]; taken {
			continue
		}
		root = map[string]any{}
		for _, kk := range keys {
			root[kk] = ex.doc.Root[kk]
		}
		delete(root, k)
		root[typo] = ex.doc.Root[k]
		keys = slices.Clone(keys)
		keys[i] = typo
		return root, keys, typo
	}
	t.Fatalf("%s: no key to misspell", ex.doc.Name)
	return nil, nil, ""
}

// tsValue writes a decoded value as a TypeScript expression: JSON, keys in
// the order written.
func tsValue(doc *input.Document, root map[string]any, keys []string) string {
	var b strings.Builder
	b.WriteString("{\n")
	for _, k := range keys {
		kb, _ := json.Marshal(k)
		fmt.Fprintf(&b, "  %s: %s,\n", kb, input.AppendJSON(nil, root[k], doc.Order(), false))
	}
	b.WriteString("}")
	return b.String()
}

// pyValue writes a decoded value as a Python expression, keys in the order
// written.
func pyValue(doc *input.Document, root map[string]any, keys []string) string {
	var order func(v any) any
	order = func(v any) any {
		switch v := v.(type) {
		case map[string]any:
			o := &orderedObject{keys: doc.Keys(v), values: map[string]any{}}
			for _, k := range o.keys {
				o.values[k] = order(v[k])
			}
			return o
		case []any:
			out := make([]any, len(v))
			for i, e := range v {
				out[i] = order(e)
			}
			return out
		}
		return v
	}
	var b strings.Builder
	b.WriteString("{\n")
	for _, k := range keys {
		fmt.Fprintf(&b, "    %s: %s,\n", pyString(k), pyLiteral(order(root[k])))
	}
	b.WriteString("}")
	return b.String()
}

// subject is a schema to generate types of, with its examples.
type subject struct {
	name     string
	schema   []byte
	examples []example
}

// subjects are the variants of the embedded library and the schema of
// testdata/edge.schema.json, which has what the library's schemas do not
// use yet (keys that are no identifiers, recursion, unions).
func subjects(t *testing.T) []subject {
	t.Helper()
	lib := fixture.Library(t)
	var out []subject
	for _, name := range lib.Names() {
		v, _ := lib.Variant(name)
		out = append(out, subject{name, v.SchemaJSON(), examples(t, v)})
	}
	schema, err := os.ReadFile(filepath.Join("testdata", "edge.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	ex, err := os.ReadFile(filepath.Join("testdata", "edge.example.json"))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := input.Decode(input.Input{Name: "testdata/edge.example.json", Data: ex}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(doc.Release)
	return append(out, subject{"edge", schema, []example{{"edge", doc}}})
}

// project writes, for every subject, its generated types, a file that
// assigns each of its examples to the root type, and a file that assigns an
// example with a misspelt key. It returns the misspelt key of each wrong
// file.
func project(t *testing.T, dir string, lang Lang) (wrong map[string]string) {
	t.Helper()
	wrong = map[string]string{}
	for _, s := range subjects(t) {
		src, err := Generate(lang, s.name, s.schema)
		if err != nil {
			t.Fatal(err)
		}
		root := RootName(s.name)
		exs := s.examples
		module, ext := s.name, ".ts"
		if lang == Python {
			module, ext = "promptsmith_"+s.name, ".py"
		}
		write := func(file, header string, body func(b *strings.Builder)) {
			var b strings.Builder
			b.WriteString(header)
			body(&b)
			if err := os.WriteFile(filepath.Join(dir, file), []byte(b.String()), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		var header string
		if lang == TypeScript {
			header = fmt.Sprintf("import type { %s } from \"./%s\";\n", root, module)
		} else {
			header = fmt.Sprintf("from %s import %s\n", module, root)
		}
		assign := func(b *strings.Builder, i int, label string, doc *input.Document, value map[string]any, keys []string) {
			if lang == TypeScript {
				fmt.Fprintf(b, "\n// %s\nexport const e%d: %s = %s;\n", label, i, root, tsValue(doc, value, keys))
			} else {
				fmt.Fprintf(b, "\n# %s\ne%d: %s = %s\n", label, i, root, pyValue(doc, value, keys))
			}
		}
		write(module+ext, "", func(b *strings.Builder) { b.Write(src) })
		write(module+"_examples"+ext, header, func(b *strings.Builder) {
			for i, ex := range exs {
				assign(b, i+1, ex.name, ex.doc, ex.doc.Root, ex.doc.Keys(ex.doc.Root))
			}
		})
		value, keys, typo := misspelt(t, exs[0])
		write(module+"_wrong"+ext, header, func(b *strings.Builder) {
			assign(b, 1, exs[0].name+" with "+typo, exs[0].doc, value, keys)
		})
		wrong[module+"_wrong"+ext] = typo
	}
	return wrong
}

// diagnostic is one error of a type checker.
type diagnostic struct {
	file, line, message string
}

// judge wants no error in any file but the wrong ones, and in each wrong
// file an error that names its misspelt key.
func judge(t *testing.T, checker string, diags []diagnostic, wrong map[string]string) {
	t.Helper()
	caught := map[string]bool{}
	for _, d := range diags {
		typo, isWrong := wrong[d.file]
		if !isWrong {
			t.Errorf("%s: %s:%s: %s", checker, d.file, d.line, d.message)
			continue
		}
		if strings.Contains(d.message, typo) {
			caught[d.file] = true
			t.Logf("%s refuses %s:%s: %s", checker, d.file, d.line, d.message)
		}
	}
	for _, file := range slices.Sorted(func(yield func(string) bool) {
		for f := range wrong {
			if !yield(f) {
				return
			}
		}
	}) {
		if !caught[file] {
			t.Errorf("%s accepted %s, whose key %q is misspelt", checker, file, wrong[file])
		}
	}
}

// tscError is a line of tsc --pretty false: file(line,col): error TSn: text.
var tscError = regexp.MustCompile(`^(.+?)\((\d+),\d+\): error (TS\d+: .*)$`)

// TestTypeScriptTypes type-checks the TypeScript of every variant with tsc
// --strict, and every example of the variant against it; a misspelt key
// must be refused.
func TestTypeScriptTypes(t *testing.T) {
	t.Parallel()
	tsc := tool(t, "PROMPTSMITH_TSC", "tsc")
	dir := t.TempDir()
	wrong := project(t, dir, TypeScript)
	files, _ := filepath.Glob(filepath.Join(dir, "*.ts"))
	for i := range files {
		files[i] = filepath.Base(files[i])
	}
	args := append([]string{"--strict", "--noEmit", "--pretty", "false", "--target", "es2022", "--lib", "es2022",
		"--module", "esnext", "--moduleResolution", "bundler"}, files...)
	cmd := exec.Command(tsc, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	var diags []diagnostic
	var other []string
	for _, line := range strings.Split(string(out), "\n") {
		if m := tscError.FindStringSubmatch(line); m != nil {
			diags = append(diags, diagnostic{filepath.Base(m[1]), m[2], m[3]})
		} else if strings.TrimSpace(line) != "" && !strings.HasPrefix(line, " ") {
			other = append(other, line)
		}
	}
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("running %s: %v", tsc, err)
	}
	if len(other) > 0 {
		t.Errorf("tsc printed:\n%s", strings.Join(other, "\n"))
	}
	judge(t, "tsc", diags, wrong)
}

// TestPythonTypes imports the Python types of every variant, and every
// example assigned to them, under python3, then type-checks them with
// pyright; a misspelt key must be refused.
func TestPythonTypes(t *testing.T) {
	t.Parallel()
	pyright := tool(t, "PROMPTSMITH_PYRIGHT", "pyright")
	python := tool(t, "PROMPTSMITH_PYTHON", "python3")
	dir := t.TempDir()
	wrong := project(t, dir, Python)
	files, _ := filepath.Glob(filepath.Join(dir, "*.py"))
	var modules []string
	for _, f := range files {
		modules = append(modules, strings.TrimSuffix(filepath.Base(f), ".py"))
	}
	cmd := exec.Command(python, "-c", "import "+strings.Join(modules, ", "))
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("python3 cannot import the generated types: %v\n%s", err, out)
	}

	config := `{"pythonVersion": "3.11", "typeCheckingMode": "strict", "pythonPath": ` + jsonText(python) + `}`
	if err := os.WriteFile(filepath.Join(dir, "pyrightconfig.json"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd = exec.Command(pyright, "--outputjson", "-p", dir)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("running %s: %v\n%s", pyright, err, stderr.Bytes())
	}
	var report struct {
		GeneralDiagnostics []struct {
			File     string `json:"file"`
			Severity string `json:"severity"`
			Message  string `json:"message"`
			Range    struct {
				Start struct {
					Line int `json:"line"`
				} `json:"start"`
			} `json:"range"`
		} `json:"generalDiagnostics"`
		Summary struct {
			FilesAnalyzed int `json:"filesAnalyzed"`
		} `json:"summary"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &report); err != nil {
		t.Fatalf("pyright's report: %v\n%s\n%s", err, stdout.Bytes(), stderr.Bytes())
	}
	if report.Summary.FilesAnalyzed != len(files) {
		t.Errorf("pyright analyzed %d files, want %d", report.Summary.FilesAnalyzed, len(files))
	}
	var diags []diagnostic
	for _, d := range report.GeneralDiagnostics {
		if d.Severity == "information" {
			continue
		}
		diags = append(diags, diagnostic{filepath.Base(d.File), fmt.Sprint(d.Range.Start.Line + 1), d.Severity + ": " + d.Message})
	}
	judge(t, "pyright", diags, wrong)
}
