package lsp

import (
	"strings"
)

// A template is read here as an editor holds it: often half typed, with
// an action not yet closed or a pipeline that does not parse. The scanner
// below finds the actions and their words without text/template's parser,
// which stops at the first error, so that completion and hover work on
// the text as it is.

// action is one {{ ... }} of a template.
type action struct {
	start, end int // the offsets of "{{" and just after "}}" (the text's end when unclosed)
	body       int // the offset where its words start, after "{{" and a trim marker
	bodyEnd    int // where they end, before a trim marker and "}}"
	closed     bool
}

// actions lists the template's actions in order. A comment is an action
// too (its words are the comment's), so that nothing inside one counts.
func actions(text string) []action {
	var out []action
	for i := 0; i < len(text); {
		j := strings.Index(text[i:], "{{")
		if j < 0 {
			break
		}
		a := action{start: i + j, body: i + j + 2}
		if strings.HasPrefix(text[a.body:], "- ") || strings.HasPrefix(text[a.body:], "-\t") || strings.HasPrefix(text[a.body:], "-\n") {
			a.body++
		}
		end := closeOf(text, a.body)
		if end < 0 {
			a.end, a.bodyEnd = len(text), len(text)
		} else {
			a.end, a.bodyEnd, a.closed = end+2, end, true
			if end > a.body && text[end-1] == '-' && end-2 >= a.body && (text[end-2] == ' ' || text[end-2] == '\t' || text[end-2] == '\n') {
				a.bodyEnd = end - 1
			}
		}
		out = append(out, a)
		i = a.end
	}
	return out
}

// closeOf finds the "}}" that closes an action whose words start at i,
// past strings and comments, or -1.
func closeOf(text string, i int) int {
	if strings.HasPrefix(strings.TrimLeft(text[i:], " \t\r\n"), "/*") {
		k := strings.Index(text[i:], "*/")
		if k < 0 {
			return -1
		}
		i += k + 2
	}
	for i < len(text) {
		switch c := text[i]; c {
		case '"', '`', '\'':
			k := skipQuoted(text, i)
			if k < 0 {
				return -1
			}
			i = k
		case '}':
			if strings.HasPrefix(text[i:], "}}") {
				return i
			}
			i++
		case '{':
			if strings.HasPrefix(text[i:], "{{") { // an action left open before another
				return -1
			}
			i++
		default:
			i++
		}
	}
	return -1
}

// skipQuoted returns the offset after the quoted literal starting at i,
// or -1 when it does not end (on its line, for "..." and '...').
func skipQuoted(text string, i int) int {
	q := text[i]
	for k := i + 1; k < len(text); k++ {
		switch c := text[k]; {
		case c == q:
			return k + 1
		case c == '\\' && q != '`':
			k++
		case c == '\n' && q != '`':
			return -1
		}
	}
	return -1
}

// token is one word of an action.
type token struct {
	kind tokenKind
	text string
	off  int // in the template
}

type tokenKind int

const (
	tokWord    tokenKind = iota // a name: a function, a keyword, true, nil
	tokField                    // .a.b, $.a, $x.a, ., $, $x
	tokString                   // "..." or `...` (text holds the quotes)
	tokNumber                   // 1, -2.5, 'c'
	tokPipe                     // |
	tokOpen                     // (
	tokClose                    // )
	tokDeclare                  // := or =
	tokComma                    // ,
	tokComment                  // /* ... */
)

// punctuation is the kind of the token the one byte c makes, or -1 where c
// does not make one alone.
func punctuation(c byte) tokenKind {
	switch c {
	case '|':
		return tokPipe
	case '(':
		return tokOpen
	case ')':
		return tokClose
	case ',':
		return tokComma
	case '=':
		return tokDeclare
	}
	return -1
}

// tokens splits the words of text[from:to].
func tokens(text string, from, to int) []token {
	var out []token
	s := text[:to]
	for i := from; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
			i++
		case strings.HasPrefix(s[i:], "/*"):
			k := strings.Index(s[i:], "*/")
			end := len(s)
			if k >= 0 {
				end = i + k + 2
			}
			out = append(out, token{tokComment, s[i:end], i})
			i = end
		case c == '"' || c == '`':
			end := skipQuoted(s, i)
			if end < 0 {
				end = len(s)
			}
			out = append(out, token{tokString, s[i:end], i})
			i = end
		case c == '\'':
			end := skipQuoted(s, i)
			if end < 0 {
				end = len(s)
			}
			out = append(out, token{tokNumber, s[i:end], i})
			i = end
		case punctuation(c) >= 0:
			out = append(out, token{punctuation(c), s[i : i+1], i})
			i++
		case c == ':' && i+1 < len(s) && s[i+1] == '=':
			out = append(out, token{tokDeclare, ":=", i})
			i += 2
		case c == '.' || c == '$':
			end := i + 1
			for end < len(s) && isNameByte(s[end]) || end < len(s) && s[end] == '.' {
				end++
			}
			out = append(out, token{tokField, s[i:end], i})
			i = end
		case c == '-' || c == '+' || c >= '0' && c <= '9':
			end := i + 1
			for end < len(s) && (isNameByte(s[end]) || s[end] == '.') {
				end++
			}
			out = append(out, token{tokNumber, s[i:end], i})
			i = end
		case isNameByte(c):
			end := i + 1
			for end < len(s) && (isNameByte(s[end]) || s[end] == '.') {
				end++
			}
			kind := tokWord
			if strings.Contains(s[i:end], ".") {
				kind = tokField // a function's result's field: not followed
			}
			out = append(out, token{kind, s[i:end], i})
			i = end
		default:
			i++
		}
	}
	return out
}

func isNameByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}

// expr is a pipeline's command or a command's argument: a token, or a
// parenthesised pipeline.
type expr struct {
	tok  *token
	pipe [][]expr // a parenthesised pipeline: its commands
}

// parsePipe reads a pipeline: commands separated by |, each a list of
// arguments. Unbalanced parentheses are closed at the end.
func parsePipe(toks []token) [][]expr {
	pipe, _ := parseCommands(toks, 0)
	return pipe
}

func parseCommands(toks []token, i int) ([][]expr, int) {
	var pipe [][]expr
	var cmd []expr
	for i < len(toks) {
		t := toks[i]
		switch t.kind {
		case tokPipe:
			pipe = append(pipe, cmd)
			cmd = nil
			i++
		case tokOpen:
			inner, next := parseCommands(toks, i+1)
			cmd = append(cmd, expr{pipe: inner})
			i = next
		case tokClose:
			return append(pipe, cmd), i + 1
		case tokComment:
			i++
		default:
			cmd = append(cmd, expr{tok: &toks[i]})
			i++
		}
	}
	return append(pipe, cmd), i
}
