package typegen

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"unicode"
)

// width is the column doc comments are wrapped at.
const width = 80

// typeName makes a type name of a schema name or path segment: its ASCII
// letters and digits, each run capitalized ("rate_limits" → RateLimits,
// "agentDef" → AgentDef). A name either language or its types module
// already uses gets "Type" appended, so that the output never shadows one.
func typeName(s string) string {
	var b strings.Builder
	upper := true
	for _, r := range s {
		if r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			if upper {
				r = unicode.ToUpper(r)
			}
			b.WriteRune(r)
			upper = false
		} else {
			upper = true
		}
	}
	name := b.String()
	switch {
	case name == "":
		return "Type"
	case name[0] >= '0' && name[0] <= '9':
		name = "T" + name
	}
	if reservedTypeName(name) {
		name += "Type"
	}
	return name
}

// reservedTypeName reports whether a capitalized name is one the generated
// TypeScript or Python uses or would shadow.
func reservedTypeName(name string) bool {
	switch name {
	case "Record", "Array", "Object", "String", "Number", "Boolean", "Symbol", "BigInt", "Function", "Date",
		"Map", "Set", "Promise", "Error", "RegExp", "Partial", "Required", "Readonly", "Pick", "Omit",
		"Exclude", "Extract", "NonNullable", "Any", "Literal", "Never", "NotRequired", "ReadOnly",
		"TypedDict", "TypeAlias", "None", "True", "False":
		return true
	}
	return false
}

// paragraphs splits a description into the doc's paragraphs; line breaks
// inside a paragraph are kept.
func paragraphs(desc string) []string {
	desc = strings.TrimSpace(strings.ReplaceAll(desc, "\r\n", "\n"))
	if desc == "" {
		return nil
	}
	var out []string
	for _, p := range strings.Split(desc, "\n\n") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// docLines lays out paragraphs as lines of at most w columns, a blank line
// between paragraphs; a line that starts with "- " is a list item whose
// continuation lines are indented under its text.
func docLines(paras []string, w int) []string {
	var out []string
	for i, p := range paras {
		if i > 0 {
			out = append(out, "")
		}
		for _, line := range strings.Split(p, "\n") {
			if rest, ok := strings.CutPrefix(line, "- "); ok {
				for j, l := range wrap(rest, w-2) {
					if j == 0 {
						out = append(out, "- "+l)
					} else {
						out = append(out, "  "+l)
					}
				}
				continue
			}
			out = append(out, wrap(line, w)...)
		}
	}
	return out
}

// wrap breaks text at spaces into lines of at most w columns; a word longer
// than that has a line of its own.
func wrap(text string, w int) []string {
	words := strings.Fields(text)
	if len(words) == 0 {
		return []string{""}
	}
	if w < 20 {
		w = 20
	}
	var lines []string
	line := words[0]
	for _, word := range words[1:] {
		if len([]rune(line))+1+len([]rune(word)) > w {
			lines = append(lines, line)
			line = word
			continue
		}
		line += " " + word
	}
	return append(lines, line)
}

// jsonText writes a value of the schema (an enum value, a key) as compact
// JSON, objects' keys in written order, without HTML escaping.
func jsonText(v any) string {
	var b strings.Builder
	writeJSON(&b, v, ",", ":")
	return b.String()
}

// jsonDoc writes a value as jsonText does, with a space after commas and
// colons, for a doc comment that may wrap it.
func jsonDoc(v any) string {
	var b strings.Builder
	writeJSON(&b, v, ", ", ": ")
	return b.String()
}

func writeJSON(b *strings.Builder, v any, comma, colon string) {
	switch v := v.(type) {
	case *orderedObject:
		b.WriteByte('{')
		for i, k := range v.keys {
			if i > 0 {
				b.WriteString(comma)
			}
			writeJSON(b, k, comma, colon)
			b.WriteString(colon)
			writeJSON(b, v.values[k], comma, colon)
		}
		b.WriteByte('}')
	case []any:
		b.WriteByte('[')
		for i, e := range v {
			if i > 0 {
				b.WriteString(comma)
			}
			writeJSON(b, e, comma, colon)
		}
		b.WriteByte(']')
	case int64:
		b.WriteString(strconv.FormatInt(v, 10))
	case float64:
		b.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
	default:
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(v)
		b.WriteString(strings.TrimSuffix(buf.String(), "\n"))
	}
}
