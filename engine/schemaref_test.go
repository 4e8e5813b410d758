package engine

import (
	"context"
	"errors"
	"strings"
	"testing"
	"testing/fstest"
)

// TestSchemaRefersToAnotherFile: a $ref to another file of schemas/ reaches
// it when the variant's schema compiles, with its defaults and its errors;
// a file nobody refers to is never read, so a broken one harms no variant.
func TestSchemaRefersToAnotherFile(t *testing.T) {
	t.Parallel()
	withCommon := func(common string) func(fstest.MapFS) {
		return func(f fstest.MapFS) {
			s := string(f["schemas/note.schema.json"].Data)
			s = strings.Replace(s, `"style": {"type": "string", "description": "A template under styles/."}`,
				`"style": {"$ref": "common.schema.json#/$defs/style", "description": "A template under styles/."}`, 1)
			f["schemas/note.schema.json"] = &fstest.MapFile{Data: []byte(s)}
			f["schemas/common.schema.json"] = &fstest.MapFile{Data: []byte(common)}
			f["schemas/unused.schema.json"] = &fstest.MapFile{Data: []byte(`{"broken": `)}
		}
	}
	lib := mustLoadNote(t, withCommon(`{"$schema": "https://json-schema.org/draft/2020-12/schema",
  "$defs": {"style": {"type": "string", "enum": ["plain", "fancy"], "default": "plain"}}}`))
	res, err := lib.Render(context.Background(), "note", Input{Name: "in.yaml", Data: []byte("title: T\nstyle: fancy\n")})
	if err != nil || !strings.Contains(res.Text, "*fancy") {
		t.Fatalf("render with a referenced schema: %v", err)
	}
	_, err = lib.Render(context.Background(), "note", Input{Name: "in.yaml", Data: []byte("title: T\nstyle: loud\n")})
	var e *Error
	if !errors.As(err, &e) || e.Field != "/style" {
		t.Errorf("a value the referenced schema refuses: %v", err)
	}

	_, err = loadNote(t, withCommon(`{"$defs": {"style": `))
	if !errors.As(err, &e) || !strings.Contains(err.Error(), "common.schema.json") {
		t.Errorf("a referenced file that is not JSON: %v", err)
	}

	// Rendering reads nothing but the library: a $ref out of schemas/ is refused.
	for _, ref := range []string{"file:///etc/hostname", "https://example.invalid/s.json", "missing.schema.json"} {
		_, err = loadNote(t, func(f fstest.MapFS) {
			s := strings.Replace(string(f["schemas/note.schema.json"].Data), `"style": {"type": "string",`, `"style": {"$ref": "`+ref+`",`, 1)
			f["schemas/note.schema.json"] = &fstest.MapFile{Data: []byte(s)}
		})
		if err == nil || !strings.Contains(err.Error(), "is not a schema of the library") {
			t.Errorf("$ref %s: %v", ref, err)
		}
	}
}
