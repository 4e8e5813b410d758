package lsp

// The place of the cursor in a JSON example input, as yamlPlaceAt finds it
// in a YAML one: the path of keys to the object (or list) being typed in,
// and whether a key or a value is typed. JSON being typed rarely parses,
// so the text before the cursor is scanned, not parsed: only the open
// objects and lists, their current keys, and the string the cursor is in
// matter.

// jsonPlace is a yamlPlace with what a JSON edit needs besides: the
// closing quote the editor may have typed already, and whether a colon
// follows the key.
type jsonPlace struct {
	yamlPlace
	end   int  // the offset the completion replaces up to (past a closing quote)
	colon bool // a colon follows the key already
}

// jsonContainer is an object or a list open at the cursor.
type jsonContainer struct {
	object    bool
	key       string // an object's key being given a value
	expectKey bool   // an object: the next string is a key
}

// jsonPlaceAt finds the place at off in a JSON text; ok is false outside
// of any object or list (or after the document's end).
func jsonPlaceAt(text string, off int) (jsonPlace, bool) {
	stack, quote, ok := jsonScan(text, off)
	if !ok || len(stack) == 0 {
		return jsonPlace{}, false
	}
	var p jsonPlace
	for _, c := range stack[:len(stack)-1] {
		if c.object {
			p.path = append(p.path, c.key)
		} else {
			p.path = append(p.path, "-")
		}
	}
	top := stack[len(stack)-1]
	switch {
	case top.object && top.expectKey:
	case top.object:
		p.value, p.key = true, top.key
	default:
		p.value = true
		p.path = append(p.path, "-")
	}
	p.start, p.end = off, off
	if quote >= 0 {
		p.start, p.prefix = quote, text[quote+1:off]
		if off < len(text) && text[off] == '"' {
			p.end = off + 1
		}
	} else {
		// a bare word typed (true, a number): it is replaced whole
		for p.start > 0 && isNameByte(text[p.start-1]) {
			p.start--
		}
		p.prefix = text[p.start:off]
	}
	for k := p.end; k < len(text); k++ {
		if c := text[k]; c != ' ' && c != '\t' {
			p.colon = c == ':'
			break
		}
	}
	return p, true
}

// jsonScan reads text up to off: the objects and lists open there, and
// the offset of the quote of a string open there (or -1). ok is false
// when more close than opened.
func jsonScan(text string, off int) (stack []jsonContainer, quote int, ok bool) {
	quote = -1
	for i := 0; i < off; i++ {
		n := len(stack)
		switch c := text[i]; c {
		case '{':
			stack = append(stack, jsonContainer{object: true, expectKey: true})
		case '[':
			stack = append(stack, jsonContainer{})
		case '}', ']':
			if n == 0 {
				return nil, -1, false
			}
			stack = stack[:n-1]
		case ',':
			if n > 0 && stack[n-1].object {
				stack[n-1].expectKey, stack[n-1].key = true, ""
			}
		case ':':
			if n > 0 && stack[n-1].object {
				stack[n-1].expectKey = false
			}
		case '"':
			end := i + 1
			for end < off && text[end] != '"' && text[end] != '\n' {
				if text[end] == '\\' {
					end++
				}
				end++
			}
			switch {
			case end >= off:
				quote = i
			case text[end] == '"' && n > 0 && stack[n-1].object && stack[n-1].expectKey:
				stack[n-1].key = unquoteJSON(text[i+1 : end])
			}
			i = end
		}
	}
	return stack, quote, true
}

// unquoteJSON is a key's text without its escapes, as far as keys of a
// schema use them.
func unquoteJSON(s string) string {
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
		}
		out = append(out, s[i])
	}
	return string(out)
}
