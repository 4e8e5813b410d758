package outline

import (
	"os"
	"path/filepath"
	"slices"

	"github.com/promptsmith/promptsmith/engine/verbatim"
	"testing"
)

// markdown holds the constructs the scan must read as goldmark does: each
// kind of block, what interrupts a paragraph and what does not, and the
// edges of ATX and setext headings.
var markdown = []string{
	"# One\n\ntext\n\n## Two ##\n",
	"#\n# \n#    #\n### ###\n#5 bolt\n####### seven\n# a #b\n# a#\n# a \\#\n",
	"Title\n===\n\nSub\ntitle\n---   \n\n---\n\n===\n",
	"para\n    # indented continues\n# ATX interrupts\n",
	"    code\n\n    # not a heading\n\n# after\n",
	"```go\n# inside\n````\n# still inside\n```\n# out\n",
	"~~~\n# in\n~~ \n~~~~\n# out\n",
	"``` a`b\n# a paragraph, not a fence\n",
	"text\n```\n# fenced\n```\nUnder\n---\n",
	"<!-- a comment\n# inside\n-->\n# out\n",
	"<!-- one line -->\nText\n===\n",
	"<?php\n# in\n?>\n<!DOCTYPE html>\n# out\n<![CDATA[\n# in\n]]>\n# out\n",
	"para\n<!-- interrupts -->\nLine\n---\n",
	"<!x not html\n# yes\n< space\n# yes\n",
	"\t# tab indented\n\n  \t# also code\n\n# heading\t#\n#\theading\n",
	"para\n\t# lazy\n---\n",
	"crlf\r\n# heading\r\n\r\nsetext\r\n===\r\n",
	"# unicode\u00a0\n# \u00a0\n",
	"no newline at the end\n# last",
	"para\n   ===\n\n    ===\n",
	"- list\n# heading\n> quote\n---\n",
	"   ```\n# in\n   ```\n# out\n",
	"```\n\t```\n# in: a tab-indented fence does not close\n```\n",
	// Prompts that mark their parts with tags of their own.
	"<context>\n# In the HTML block\n\n# After the blank line\n</context>\n",
	"para\n<context>\n# interrupts the paragraph\n",
	"para\n<div>\n# inside a type 6 block\n\n# out\n",
	"</instructions>\n# inside\n\n<br/>\n<hr />\n# inside too\n",
	"<div class=\"x\" data-y>\n# inside\n\n< div>\n# heading\n</>\n# heading\n",
	"<context>  \n# in\n\n<context>text</context>\n# paragraph\n\npara\n<a b\n# in a paragraph\n",
	"<DIV>\n# in\n\n<Custom-Tag2>\n# in\n\n<prefix>\n# in\n",
}

// deferred are texts the scan leaves to goldmark: a tab or a form feed
// among a tag's spaces, which goldmark's regular expression may read as
// the white space before an attribute (<A \tA> opens a block of type 7).
var deferred = []string{"<A \tA>\n# 0", "<x\f>\n# h\n", "<x \t>\n# h\n"}

func TestScanDefersToGoldmark(t *testing.T) {
	for _, src := range deferred {
		if _, ok := scan(src, nil); ok {
			t.Errorf("the scan reads %q itself", src)
		}
		compare(t, src)
	}
}

func TestScanMatchesGoldmark(t *testing.T) {
	for _, src := range markdown {
		if _, ok := scan(src, nil); !ok {
			t.Errorf("the scan leaves %q to goldmark", src)
		}
		compare(t, src)
	}
}

// TestScanReadsThePrompts holds the scan to goldmark on every golden prompt,
// and checks that the scan reads each of them itself: the fast path is the
// one the variants' prompts take.
func TestScanReadsThePrompts(t *testing.T) {
	files, err := filepath.Glob("../../../testdata/golden/*/*.md")
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden prompts found (%v)", err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := scan(string(b), nil); !ok {
			t.Errorf("%s: the scan leaves it to goldmark", f)
		}
		compare(t, string(b))
	}
}

func FuzzScanMatchesGoldmark(f *testing.F) {
	for _, src := range append(markdown, deferred...) {
		f.Add(src)
	}
	f.Fuzz(func(t *testing.T, src string) {
		compare(t, src)
	})
}

func compare(t *testing.T, src string) {
	t.Helper()
	got, ok := scan(src, nil)
	if !ok {
		return
	}
	want := parse(src)
	if !slices.Equal(got, want) {
		t.Errorf("scan and goldmark differ on %q:\nscan:     %+v\ngoldmark: %+v", src, got, want)
	}
}

func TestScanLeavesTagsToGoldmark(t *testing.T) {
	for _, src := range []string{"<pre>\n# x\n", "</script>\n", "<context id=\"a\">\n# x\n", "<div\tclass=x>\n# x\n", "<x>\r\n# x\n", "<a b\n# x\n"} {
		if _, ok := scan(src, nil); ok {
			t.Errorf("scan read %q, which goldmark's regular expressions must judge", src)
		}
		// Of still lists what goldmark finds.
		if hs := Of(src, nil); len(hs) != len(parse(src)) {
			t.Errorf("Of(%q) = %+v", src, hs)
		}
	}
}

var delegation = verbatim.Markers{Start: "<!-- PARENT PROMPT START -->", End: "<!-- PARENT PROMPT END -->"}

// FuzzScanAroundRegions: with verbatim regions opaque, the scan steps over
// them as goldmark reads the text spliced without them, offsets in the
// whole text.
func FuzzScanAroundRegions(f *testing.F) {
	f.Add("# Before\n", "# Inside\n```\nopen fence", "# After\n")
	f.Add("para", "", "---\n")
	f.Add("Title\n", "x\n", "===\n")
	f.Fuzz(func(t *testing.T, before, inside, after string) {
		compareAround(t, before+"\n"+delegation.Start+"\n"+inside+"\n"+delegation.End+"\n"+after)
	})
}

func compareAround(t *testing.T, src string) {
	t.Helper()
	regions, err := delegation.TopRegions(src)
	if err != nil {
		return
	}
	got, ok := scan(src, regions)
	if !ok {
		return
	}
	if want := parseAround(src, regions); !slices.Equal(got, want) {
		t.Errorf("around %v of %q:\nscan:     %+v\ngoldmark: %+v", regions, src, got, want)
	}
}

func TestScanAroundTheParents(t *testing.T) {
	files, _ := filepath.Glob("../../../testdata/golden/delegation/*.md")
	if len(files) == 0 {
		t.Fatal("no delegation prompts found")
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		regions, err := delegation.TopRegions(string(b))
		if err != nil || len(regions) != 1 {
			t.Fatalf("%s: %v %v", f, regions, err)
		}
		if _, ok := scan(string(b), regions); !ok {
			t.Errorf("%s: the scan leaves it to goldmark", f)
		}
		compareAround(t, string(b))
	}
}
