package variants_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"gopkg.in/yaml.v3"

	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/internal/testing/fixture"
)

// The squad variant promises the exact string that buildAgentSystemPrompt in
// protocol.ts (seed 002) returns. The functions below are that builder written
// out again in Go, one function per TypeScript function, with the same string
// building; the store's loadAllTasks, loadMessages and loadAllKnowledge read
// the input's tasks, messages and knowledge. The one deliberate difference is
// the cut of a previous output: JavaScript's slice(0, 2000) counts UTF-16
// units, the variant counts characters and never splits one (the variant
// rule), which is the same for every text without characters beyond U+FFFF.

// squadRecord is a TypeScript Record decoded in input key order, the order
// Object.entries gives.
type squadRecord[T any] struct {
	keys   []string
	values []T
}

func (r *squadRecord[T]) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.MappingNode {
		return fmt.Errorf("line %d: expected a mapping", n.Line)
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		var v T
		if err := n.Content[i+1].Decode(&v); err != nil {
			return err
		}
		r.keys = append(r.keys, n.Content[i].Value)
		r.values = append(r.values, v)
	}
	return nil
}

// squadScalar is a value shown as the input writes it (a message's ts may be
// a string or a number).
type squadScalar string

func (s *squadScalar) UnmarshalYAML(n *yaml.Node) error {
	*s = squadScalar(n.Value)
	return nil
}

type squadInput struct {
	SquadID        string                    `yaml:"squadId"`
	Squad          squadSquad                `yaml:"squad"`
	Task           squadTask                 `yaml:"task"`
	AgentDef       squadAgentDef             `yaml:"agentDef"`
	ModifiedFiles  squadRecord[[]string]     `yaml:"modifiedFiles"`
	QueuedMessages []squadMessage            `yaml:"queuedMessages"`
	Tasks          []squadTask               `yaml:"tasks"`
	Messages       map[string][]squadMessage `yaml:"messages"`
	Knowledge      []squadKnowledgeEntry     `yaml:"knowledge"`
}

type squadSquad struct {
	Goal   string                 `yaml:"goal"`
	Agents squadRecord[yaml.Node] `yaml:"agents"`
}

type squadTask struct {
	ID          string   `yaml:"id"`
	Title       string   `yaml:"title"`
	Description string   `yaml:"description"`
	Agent       string   `yaml:"agent"`
	Status      string   `yaml:"status"`
	Depends     []string `yaml:"depends"`
	Output      string   `yaml:"output"`
	RetryOf     string   `yaml:"retryOf"`
	RetryCount  int      `yaml:"retryCount"`
	QAFeedback  string   `yaml:"qaFeedback"`
}

type squadAgentDef struct {
	Name        string `yaml:"name"`
	Role        string `yaml:"role"`
	Description string `yaml:"description"`
	Prompt      string `yaml:"prompt"`
}

type squadMessage struct {
	TS   squadScalar `yaml:"ts"`
	From string      `yaml:"from"`
	Type string      `yaml:"type"`
	Text string      `yaml:"text"`
}

type squadKnowledgeEntry struct {
	Type string `yaml:"type"`
	Text string `yaml:"text"`
	From string `yaml:"from"`
}

// squadFind is Array.prototype.find over tasks by id.
func squadFind(tasks []squadTask, id string) (squadTask, bool) {
	for _, t := range tasks {
		if t.ID == id {
			return t, true
		}
	}
	return squadTask{}, false
}

// squadLast is slice(-n).
func squadLast[T any](l []T, n int) []T { return l[len(l)-min(n, len(l)):] }

func squadBuildSquadProtocol(agentName string, agentDef squadAgentDef, squad squadSquad) string {
	var names []string
	for _, name := range squad.Agents.keys {
		names = append(names, "- "+name)
	}
	agentList := strings.Join(names, "\n")

	return `# Squad Protocol

You are agent "` + agentName + `" (` + agentDef.Role + `) in a multi-agent squad.

**Goal:** ` + squad.Goal + `

## Team
` + agentList + `

## Communication

### Talking to other agents
Write @agentname followed by your message in your regular output.
The squad system parses @mentions and routes them to the target agent.
- "@frontend what token format do you need?"
- "@backend the schema needs a role column"

### Receiving messages
Messages from other agents and the human will arrive as interruptions
injected into your conversation. Read them, incorporate the info, and continue.

### Completion
When you finish your task, clearly state your final output in your last message.
This output gets passed to dependent tasks as context.

### Blocking
If you cannot proceed, clearly explain what you need and from whom.
The squad system will detect this and route help.

## Rules
- Stay focused on YOUR task — don't do work assigned to other agents
- Read the dependency outputs below — don't redo completed work
- Check the modified files list — coordinate before editing shared files
- Ask for help if stuck — don't spin for more than a few minutes
- Verify your work before claiming done
`
}

func squadBuildAgentIdentity(agentDef squadAgentDef) string {
	if agentDef.Prompt == "" {
		return ""
	}
	return `# Agent Identity: ` + agentDef.Name + `

Role: ` + agentDef.Role + `
` + agentDef.Description + `

` + agentDef.Prompt + `
`
}

func squadBuildChainContext(task squadTask, allTasks []squadTask, in squadInput) string {
	if len(task.Depends) == 0 {
		return ""
	}

	var sections []string

	for _, depID := range task.Depends {
		dep, found := squadFind(allTasks, depID)
		if !found || dep.Status != "done" {
			continue
		}

		section := "## " + dep.ID + " (done by " + dep.Agent + ")\n**" + dep.Title + "**\n"
		if dep.Output != "" {
			section += "\nOutput:\n" + dep.Output + "\n"
		} else {
			// Fall back to last messages if no explicit output
			messages := in.Messages[dep.ID] // loadMessages(squadId, dep.id)
			var texts []string
			for _, m := range messages {
				if m.From == dep.Agent && (m.Type == "text" || m.Type == "done") {
					texts = append(texts, m.Text)
				}
			}
			lastText := strings.Join(squadLast(texts, 3), "\n")
			if lastText != "" {
				section += "\nLast messages:\n" + lastText + "\n"
			}
		}
		sections = append(sections, section)
	}

	if len(sections) == 0 {
		return ""
	}

	return `# Completed Dependencies

` + strings.Join(sections, "\n---\n\n") + `
`
}

func squadBuildSiblingAwareness(task squadTask, allTasks []squadTask, modifiedFiles squadRecord[[]string]) string {
	var siblings []squadTask
	for _, t := range allTasks {
		if t.ID != task.ID && (t.Status == "in_progress" || t.Status == "blocked" || t.Status == "pending") {
			siblings = append(siblings, t)
		}
	}

	if len(siblings) == 0 && len(modifiedFiles.keys) == 0 {
		return ""
	}

	lines := []string{"# Sibling Tasks\n"}

	if len(siblings) > 0 {
		lines = append(lines, "Other tasks in this squad:\n")
		for _, sib := range siblings {
			line := "- **" + sib.ID + "** [" + sib.Status + "] — " + sib.Agent + " — " + sib.Title
			waits := false
			for _, d := range sib.Depends {
				waits = waits || d == task.ID
			}
			if sib.Status == "blocked" && waits {
				line += " ⚠️ WAITING ON YOUR TASK"
			}
			lines = append(lines, line)
		}
	}

	// File ownership map
	var agents []string
	var fileLists [][]string
	for i, agent := range modifiedFiles.keys {
		if agent != task.Agent {
			agents = append(agents, agent)
			fileLists = append(fileLists, modifiedFiles.values[i])
		}
	}
	if len(agents) > 0 {
		lines = append(lines, "\n## Files Modified by Other Agents\n")
		for i, agent := range agents {
			files := fileLists[i]
			if len(files) > 0 {
				lines = append(lines, "**"+agent+":**")
				for _, f := range files[:min(10, len(files))] {
					lines = append(lines, "  - "+f)
				}
				if len(files) > 10 {
					lines = append(lines, fmt.Sprintf("  - ...and %d more", len(files)-10))
				}
			}
		}
		lines = append(lines,
			"\n⚠️ Coordinate with the owning agent before editing files listed above.",
		)
	}

	return strings.Join(lines, "\n") + "\n"
}

func squadBuildKnowledgeSection(in squadInput) string {
	entries := in.Knowledge // loadAllKnowledge(squadId)
	if len(entries) == 0 {
		return ""
	}

	var decisions, conventions, findings []squadKnowledgeEntry
	for _, e := range entries {
		switch e.Type {
		case "decision":
			decisions = append(decisions, e)
		case "convention":
			conventions = append(conventions, e)
		case "finding":
			findings = append(findings, e)
		}
	}

	lines := []string{"# Squad Knowledge\n"}

	if len(decisions) > 0 {
		lines = append(lines, "## Decisions")
		for _, d := range squadLast(decisions, 10) {
			lines = append(lines, "- "+d.Text+" ("+d.From+")")
		}
		lines = append(lines, "")
	}

	if len(conventions) > 0 {
		lines = append(lines, "## Project Conventions")
		for _, c := range squadLast(conventions, 10) {
			lines = append(lines, "- "+c.Text+" ("+c.From+")")
		}
		lines = append(lines, "")
	}

	if len(findings) > 0 {
		lines = append(lines, "## Findings")
		for _, f := range squadLast(findings, 10) {
			lines = append(lines, "- "+f.Text+" ("+f.From+")")
		}
		lines = append(lines, "")
	}

	return strings.Join(lines, "\n")
}

func squadBuildQueuedMessages(messages []squadMessage) string {
	if len(messages) == 0 {
		return ""
	}

	lines := []string{"# Messages Received While You Were Offline\n"}
	for _, msg := range messages {
		lines = append(lines, "["+string(msg.TS)+"] "+msg.From+": "+msg.Text)
	}
	lines = append(lines, "\nPlease read and incorporate these before starting your work.\n")
	return strings.Join(lines, "\n")
}

func squadBuildTaskSection(task squadTask) string {
	description := task.Description
	if description == "" {
		description = "(no additional description)"
	}
	return `# Your Task

**` + task.Title + `**

` + description + `
`
}

func squadBuildReworkContext(task squadTask, in squadInput) string {
	if task.RetryOf == "" {
		return ""
	}

	originalTask, found := squadFind(in.Tasks, task.RetryOf) // loadAllTasks(squadId).find(...)

	attempt := task.RetryCount
	if attempt == 0 {
		attempt = 1
	}
	lines := []string{
		"# ⚠️ REWORK — Fix Issues From Previous Attempt\n",
		fmt.Sprintf("This is attempt #%d to fix issues in **%s**.\n", attempt, task.RetryOf),
	}

	if found && originalTask.Output != "" {
		lines = append(lines, "## What Was Built (Previous Attempt)")
		lines = append(lines, squadFirstChars(originalTask.Output, 2000))
		lines = append(lines, "")
	}

	if task.QAFeedback != "" {
		lines = append(lines, "## QA Feedback — What Needs Fixing")
		lines = append(lines, task.QAFeedback)
		lines = append(lines, "")
	}

	lines = append(lines, "## Instructions")
	lines = append(lines, "- Read the QA feedback carefully — fix ONLY the reported issues")
	lines = append(lines, "- Do NOT rewrite everything from scratch")
	lines = append(lines, "- Make targeted, minimal fixes")
	lines = append(lines, "- Re-run the failing tests to verify your fixes")
	lines = append(lines, "- Include test output as evidence in your completion message\n")

	return strings.Join(lines, "\n")
}

// squadFirstChars is output.slice(0, n) counted in characters.
func squadFirstChars(s string, n int) string {
	r := []rune(s)
	return string(r[:min(n, len(r))])
}

func squadBuildAgentSystemPrompt(in squadInput) string {
	task, allTasks := in.Task, in.Tasks // loadAllTasks(squadId)

	sections := []string{
		squadBuildSquadProtocol(task.Agent, in.AgentDef, in.Squad),
		squadBuildAgentIdentity(in.AgentDef),
		squadBuildTaskSection(task),
		squadBuildReworkContext(task, in),
		squadBuildChainContext(task, allTasks, in),
		squadBuildSiblingAwareness(task, allTasks, in.ModifiedFiles),
		squadBuildKnowledgeSection(in),
		squadBuildQueuedMessages(in.QueuedMessages),
	}
	var kept []string
	for _, s := range sections {
		if len(s) > 0 {
			kept = append(kept, s)
		}
	}

	return strings.Join(kept, "\n---\n\n")
}

// squadAssertMatchesSeed renders an input and compares it with the reference.
func squadAssertMatchesSeed(t *testing.T, in engine.Input) {
	t.Helper()
	var decoded squadInput
	if err := yaml.Unmarshal(in.Data, &decoded); err != nil {
		t.Fatalf("decoding %s for the reference: %v", in.Name, err)
	}
	want := squadBuildAgentSystemPrompt(decoded)
	res, err := fixture.Library(t).Render(context.Background(), "squad", in)
	if err != nil {
		t.Fatalf("render: %v", err)
	}
	if res.Text != want {
		i := 0
		for i < min(len(want), len(res.Text)) && want[i] == res.Text[i] {
			i++
		}
		t.Fatalf("the prompt differs from protocol.ts at byte %d:\nrendered: %q\nseed:     %q",
			i, res.Text[max(0, i-80):min(len(res.Text), i+80)], want[max(0, i-80):min(len(want), i+80)])
	}
}

// TestSquadMatchesSeed compares the squad examples pinned to the seed
// (seed.pinned in templates/squad/prompt.yaml: the shows of the builder and
// its corners) with the reference builder. An example not pinned (one
// using a field protocol.ts does not know) is left to the golden files.
func TestSquadMatchesSeed(t *testing.T) {
	t.Parallel()
	eachPinned(t, "squad", "002_a6e0a108699b94e3.txt", 20, func(t *testing.T, _ *engine.Variant, _ string, in engine.Input) {
		squadAssertMatchesSeed(t, in)
	})
}

// TestSquadReworkTruncation checks the cut of a previous output at 2000
// characters: whatever characters stand around the cut, the shown text is
// valid UTF-8, a prefix of the output, and exactly 2000 characters long.
func TestSquadReworkTruncation(t *testing.T) {
	t.Parallel()
	a := strings.Repeat
	cases := []struct {
		name, output string
		chars        int // characters shown
	}{
		{"2-byte character straddling byte 2000", a("x", 1999) + "é" + "after", 2000},
		{"3-byte character straddling byte 2000", a("x", 1998) + "日本語", 2000},
		{"4-byte character straddling byte 2000", a("x", 1999) + "🙂" + "after", 2000},
		{"4-byte character right after the cut", a("x", 2000) + "🙂", 2000},
		{"3-byte characters only", a("語", 2100), 2000},
		{"4-byte characters only", a("🙂", 2001), 2000},
		{"combining mark after the cut", a("x", 1999) + "e\u0301", 2000},
		{"exactly 2000 multi-byte characters", a("é", 2000), 2000},
		{"2001 characters", a("ü", 2001), 2000},
		{"shorter than the cut", "Built it — 完成", 13},
	}
	const head = "## What Was Built (Previous Attempt)\n"
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := map[string]any{
				"squadId":  "sq-1",
				"squad":    map[string]any{"goal": "g", "agents": map[string]any{"backend": map[string]any{}}},
				"agentDef": map[string]any{"name": "backend", "role": "r", "description": "d"},
				"task":     map[string]any{"id": "T-2", "title": "t", "agent": "backend", "status": "pending", "retryOf": "T-1"},
				"tasks":    []any{map[string]any{"id": "T-1", "title": "t", "agent": "backend", "status": "failed", "output": c.output}},
			}
			res, err := fixture.Library(t).RenderValue(context.Background(), "squad", in)
			if err != nil {
				t.Fatal(err)
			}
			start := strings.Index(res.Text, head)
			end := strings.Index(res.Text, "\n\n## Instructions\n")
			if start < 0 || end < start {
				t.Fatalf("no previous attempt in:\n%s", res.Text)
			}
			shown := res.Text[start+len(head) : end]
			if !utf8.ValidString(shown) || !utf8.ValidString(res.Text) {
				t.Fatalf("invalid UTF-8 around the cut: %q", shown[max(0, len(shown)-8):])
			}
			if n := utf8.RuneCountInString(shown); n != c.chars {
				t.Errorf("%d characters shown, want %d", n, c.chars)
			}
			if !strings.HasPrefix(c.output, shown) {
				t.Errorf("the shown text is not a prefix of the output: ends %q", shown[max(0, len(shown)-8):])
			}
		})
	}
}

// squadValidInput is a valid squad input; refusal tests change one thing each.
func squadValidInput() map[string]any {
	return map[string]any{
		"squadId": "sq-1",
		"squad": map[string]any{"goal": "Ship it", "agents": map[string]any{
			"backend": map[string]any{"name": "backend"}, "frontend": map[string]any{"name": "frontend"}}},
		"agentDef": map[string]any{"name": "backend", "role": "backend engineer", "description": "Builds the API."},
		"task": map[string]any{"id": "T-2", "title": "Login endpoint", "agent": "backend", "status": "in_progress",
			"depends": []any{"T-1"}, "createdAt": "2026-03-01T10:00:00Z"},
		"tasks": []any{
			map[string]any{"id": "T-1", "title": "Contract", "agent": "frontend", "status": "done", "updatedAt": 1767225600000},
			map[string]any{"id": "T-2", "title": "Login endpoint", "agent": "backend", "status": "in_progress"},
		},
		"modifiedFiles":  map[string]any{"frontend": []any{"src/login.tsx"}},
		"messages":       map[string]any{"T-1": []any{map[string]any{"from": "frontend", "type": "text", "text": "done"}}},
		"knowledge":      []any{map[string]any{"type": "decision", "text": "Use JWTs", "from": "frontend", "id": "k-1"}},
		"queuedMessages": []any{map[string]any{"ts": 1, "from": "human", "text": "hi", "read": false}},
	}
}

func squadRender(t *testing.T, in map[string]any) (*engine.Result, error) {
	t.Helper()
	return renderInput(t, "squad", in)
}

// TestSquadAcceptsStoreFields: store objects may carry fields the builder
// does not read, so that a TypeScript caller passes them as they are, and may
// leave out those it does not read (a stored message's ts, a queued one's type).
func TestSquadAcceptsStoreFields(t *testing.T) {
	t.Parallel()
	if _, err := squadRender(t, squadValidInput()); err != nil {
		t.Fatal(err)
	}
}

func TestSquadRefusals(t *testing.T) {
	t.Parallel()
	obj := func(m map[string]any, key string) map[string]any { return m[key].(map[string]any) }
	elem := func(m map[string]any, key string, i int) map[string]any { return m[key].([]any)[i].(map[string]any) }
	testRefusals(t, "squad", squadValidInput, []refusal{
		{"missing squadId", func(m map[string]any) { delete(m, "squadId") }, "/squadId", "required field is missing"},
		{"empty squadId", func(m map[string]any) { m["squadId"] = "" }, "/squadId", "length must be >= 1"},
		{"misspelt top-level field", func(m map[string]any) { m["queuedMesages"] = m["queuedMessages"] },
			"/queuedMesages", `unknown field "queuedMesages"`},
		{"snake_case field of the task", func(m map[string]any) { obj(m, "task")["retry_of"] = "T-1" },
			"/task/retry_of", `"retry_of" is not allowed here`},
		{"snake_case field of a stored task", func(m map[string]any) { elem(m, "tasks", 1)["qa_feedback"] = "x" },
			"/tasks/1/qa_feedback", `"qa_feedback" is not allowed here`},
		{"retryCount as text", func(m map[string]any) { obj(m, "task")["retryCount"] = "2" },
			"/task/retryCount", "expected integer, but got string"},
		{"negative retryCount", func(m map[string]any) { obj(m, "task")["retryCount"] = -1 },
			"/task/retryCount", "must be >= 0"},
		{"fractional retryCount", func(m map[string]any) { obj(m, "task")["retryCount"] = 1.5 },
			"/task/retryCount", "expected integer"},
		{"task without a title", func(m map[string]any) { delete(obj(m, "task"), "title") },
			"/task/title", "required field is missing"},
		{"stored task without a status", func(m map[string]any) { delete(elem(m, "tasks", 0), "status") },
			"/tasks/0/status", "required field is missing"},
		{"dependency id that is a number", func(m map[string]any) { obj(m, "task")["depends"] = []any{1} },
			"/task/depends/0", "expected string"},
		{"agent definition without a role", func(m map[string]any) { delete(obj(m, "agentDef"), "role") },
			"/agentDef/role", "required field is missing"},
		{"agents as a list", func(m map[string]any) { obj(m, "squad")["agents"] = []any{"backend"} },
			"/squad/agents", "expected object, but got array"},
		{"agent definition that is not an object", func(m map[string]any) { obj(obj(m, "squad"), "agents")["qa"] = "qa" },
			"/squad/agents/qa", "expected object"},
		{"file list that is a string", func(m map[string]any) { obj(m, "modifiedFiles")["frontend"] = "src/login.tsx" },
			"/modifiedFiles/frontend", "expected array, but got string"},
		{"agent name with a slash", func(m map[string]any) { obj(m, "modifiedFiles")["web/app"] = []any{"a", 2} },
			"/modifiedFiles/web~1app/1", "expected string"},
		{"stored message without text", func(m map[string]any) {
			delete(obj(m, "messages")["T-1"].([]any)[0].(map[string]any), "text")
		}, "/messages/T-1/0/text", "required field is missing"},
		{"stored message without a type", func(m map[string]any) {
			delete(obj(m, "messages")["T-1"].([]any)[0].(map[string]any), "type")
		}, "/messages/T-1/0/type", "required field is missing"},
		{"queued message without a ts", func(m map[string]any) { delete(elem(m, "queuedMessages", 0), "ts") },
			"/queuedMessages/0/ts", "required field is missing"},
		{"queued message with a boolean ts", func(m map[string]any) { elem(m, "queuedMessages", 0)["ts"] = true },
			"/queuedMessages/0/ts", "expected string or integer"},
		{"knowledge entry without its author", func(m map[string]any) { delete(elem(m, "knowledge", 0), "from") },
			"/knowledge/0/from", "required field is missing"},
	})
}

// TestSquadRefusalPosition: an error in a YAML file names the line and
// column of the field next to its JSON pointer.
func TestSquadRefusalPosition(t *testing.T) {
	t.Parallel()
	doc := `squadId: sq-1
squad: {goal: g, agents: {backend: {}}}
agentDef: {name: backend, role: r, description: d}
task:
  id: T-1
  title: t
  agent: backend
  status: pending
  retryCount: two
`
	_, err := fixture.Library(t).Render(context.Background(), "squad", engine.Input{Name: "input.yaml", Data: []byte(doc)})
	e := engine.AsError(err)
	if e == nil || e.Field != "/task/retryCount" || !strings.HasPrefix(e.Position, "input.yaml:9:") {
		t.Fatalf("got %v (field %q, position %q); want /task/retryCount at input.yaml:9", err, e.Field, e.Position)
	}
	if msg := err.Error(); !strings.Contains(msg, "input.yaml:9:") || !strings.Contains(msg, "/task/retryCount") {
		t.Errorf("the message names neither the line nor the field: %q", msg)
	}
}
