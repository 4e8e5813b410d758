package variants_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/promptsmith/promptsmith"
	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/internal/testing/fixture"
)

// The tests of this file hold the space variant's behaviour: which blocks a
// prompt has, in which order, what of the input they show and which input
// decides. The wording of the templates is held by the golden files of the
// examples (testdata/golden/space/, one example per trigger, admin or not,
// single- or multi-agent) and by the manifest's checks: an author who
// rewords a block updates them with render test --update, and these tests
// still pass. What they compare with the prompt is the input's own text,
// the admin instruction as _admin.tmpl holds it, and the manifest's checks.

// Triggers in YAML, one of each kind the seed describes.
const (
	humanMessage = `{type: space_message, from: {name: Husam, kind: human}, message: "What's our Q4 budget status?"}`
	agentMention = `{type: space_message, from: {name: Ops Agent, kind: agent}, message: "Finance, can you pull the Q4 numbers?", mentionReason: Need Q4 financial data for the weekly report}`
	planTrigger  = `{type: plan, planName: Morning Report}`
	jiraTrigger  = `{type: service, serviceName: Jira, payload: {event: ticket_created, ticketId: PROJ-123, priority: critical}}`
)

// spaceYAML is a space input in YAML: the Finance Agent (admin or not) in a
// space with Husam and, when multi, the Ops Agent; then the trigger and any
// further top-level fields (goals, memories, ...), each a YAML block.
func spaceYAML(admin, multi bool, trigger string, extra ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "now: \"2026-03-02T09:00:00Z\"\n"+
		"agent: {name: Finance Agent, entityId: ent-fin, systemInstruction: You handle budgets., isAdmin: %t}\n"+
		"space:\n  name: Engineering Ops\n  members:\n    - {name: Husam, kind: human}\n", admin)
	if multi {
		b.WriteString("    - {name: Ops Agent, kind: agent, entityId: ent-ops, description: \"handles deployments, incidents\"}\n")
	}
	b.WriteString("    - {name: Finance Agent, kind: agent, entityId: ent-fin}\n")
	b.WriteString("trigger: " + trigger + "\n")
	for _, e := range extra {
		b.WriteString(strings.TrimSuffix(e, "\n") + "\n")
	}
	return b.String()
}

func renderSpace(t *testing.T, input string) (*engine.Result, error) {
	t.Helper()
	return fixture.Library(t).Render(context.Background(), "space", engine.Input{Name: "input.yaml", Data: []byte(input)})
}

func mustRenderSpace(t *testing.T, input string) *engine.Result {
	t.Helper()
	res, err := renderSpace(t, input)
	if err != nil {
		t.Fatalf("render: %v\ninput:\n%s", err, input)
	}
	return res
}

// spaceAdminInstruction is the admin instruction as the library writes it:
// the partial _admin.tmpl, which takes nothing from the input.
func spaceAdminInstruction(t testing.TB) string {
	t.Helper()
	b, err := fs.ReadFile(promptsmith.FS(), "templates/space/_admin.tmpl")
	if err != nil {
		t.Fatal(err)
	}
	text := strings.TrimSpace(string(b))
	if text == "" || strings.Contains(text, "{{") {
		t.Fatalf("templates/space/_admin.tmpl is empty or runs actions: this test compares prompts with its text")
	}
	return text
}

// spaceConditionalRule is the text of the one manifest rule of kind
// (forbid or require) that applies only to some inputs: the tool only the
// admin of a multi-agent space may read, and the admin instruction's words
// that such an admin must read.
func spaceConditionalRule(t testing.TB, kind string) string {
	t.Helper()
	checks := fixture.Variant(t, "space").Manifest().Checks
	rules := checks.Forbid
	if kind == "require" {
		rules = checks.Require
	}
	var texts []string
	for _, r := range rules {
		if r.When != "" {
			texts = append(texts, r.Text)
		}
	}
	if len(texts) != 1 {
		t.Fatalf("the space manifest has %d conditional %s rules, want 1: %q", len(texts), kind, texts)
	}
	return texts[0]
}

// inOrder fails t unless text holds each of items, each after the one
// before it.
func inOrder(t *testing.T, what, text string, items ...string) {
	t.Helper()
	at := 0
	for _, item := range items {
		i := strings.Index(text[at:], item)
		if i < 0 {
			t.Errorf("%s: %q is missing, or not after %q:\n%s", what, item, text[:at], text)
			return
		}
		at += i + len(item)
	}
}

// lineWith returns the first line of text that holds s, or fails t.
func lineWith(t *testing.T, text, s string) string {
	t.Helper()
	for line := range strings.Lines(text) {
		if strings.Contains(line, s) {
			return line
		}
	}
	t.Errorf("no line holds %q:\n%s", s, text)
	return ""
}

// TestSpaceTriggerBlocks: the trigger block shows what triggered the run,
// as the input gives it (the message without its surrounding white space,
// the mention's reason, the plan, the service and its payload on a line of
// its own), between the members and the current time; the admin of a
// multi-agent space reads the admin instruction inside it, after the
// trigger's context and before the closing line, and every prompt passes
// the manifest's checks (which require the closing sendSpaceMessage line).
func TestSpaceTriggerBlocks(t *testing.T) {
	t.Parallel()
	admin := spaceAdminInstruction(t)
	payloadLine := "\n" + `{"event":"ticket_created","ticketId":"PROJ-123","priority":"critical"}` + "\n"
	message := []string{"Husam", `Engineering Ops`, "What's our Q4 budget status?"}
	mention := []string{"Ops Agent", `Engineering Ops`, "Finance, can you pull the Q4 numbers?", "Need Q4 financial data for the weekly report"}
	cases := []struct {
		name         string
		admin, multi bool
		trigger      string
		facts        []string // in this order
		absent       []string
	}{
		{"message from a human", false, true, humanMessage, message, []string{"Ops Agent"}},
		{"mention by an agent", false, true, agentMention, mention, nil},
		{"message text without its surrounding white space", false, false,
			`{type: space_message, from: {name: Husam, kind: human}, message: "\n  Two lines:\n  budget and forecast \n"}`,
			[]string{"Husam", "Two lines:\n  budget and forecast"}, []string{"\n  Two lines:", "forecast \n"}},
		{"plan", false, true, planTrigger, []string{"Morning Report"}, nil},
		{"service", false, true, jiraTrigger, []string{"Jira", payloadLine}, nil},
		{"message to the admin", true, true, humanMessage, message, nil},
		{"mention of the admin", true, true, agentMention, mention, nil},
		{"plan for the admin", true, true, planTrigger, []string{"Morning Report"}, nil},
		{"service for the admin", true, true, jiraTrigger, []string{"Jira", payloadLine}, nil},
		{"plan for the admin of a single-agent space", true, false, planTrigger, []string{"Morning Report"}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := mustRenderSpace(t, spaceYAML(c.admin, c.multi, c.trigger))
			if !res.OK() {
				t.Errorf("checks: %+v", res.Checks)
			}
			block := sectionText(res, "trigger")
			want := c.facts
			if c.admin && c.multi {
				want = append(slices.Clone(want), admin)
			}
			inOrder(t, "trigger block", block, want...)
			for _, s := range c.absent {
				if strings.Contains(block, s) {
					t.Errorf("trigger block holds %q:\n%s", s, block)
				}
			}
			if i := strings.Index(block, admin); i >= 0 && strings.TrimSpace(block[i+len(admin):]) == "" {
				t.Errorf("the admin instruction ends the block; the closing line must follow it:\n%s", block)
			}
			// The block stands between the members and the current time.
			names := sectionNames(res)
			if i := slices.Index(names, "trigger"); i < 1 || names[i-1] != "space" || i+1 >= len(names) || names[i+1] != "time" {
				t.Errorf("the trigger block is out of place: sections %q", names)
			}
		})
	}
}

// TestSpaceIdentityAndMembers: the prompt opens with the agent's name and
// its system instruction (without its surrounding white space; an empty one
// leaves its line out), then the space: its members in the input's order,
// agents with their entity id and what they handle, humans without an
// entity id, and the agent itself last, not by its name.
func TestSpaceIdentityAndMembers(t *testing.T) {
	t.Parallel()
	in := strings.Replace(spaceYAML(false, true, humanMessage), "    - {name: Husam, kind: human}\n",
		"    - {name: Husam, kind: human}\n    - {name: Lina, kind: human, entityId: ent-lina}\n", 1)
	res := mustRenderSpace(t, in)
	if res.Sections[0].Name != "identity" || res.Sections[1].Name != "space" {
		t.Fatalf("sections %q, want identity, then space", sectionNames(res))
	}
	identity := sectionText(res, "identity")
	inOrder(t, "identity", identity, "Finance Agent", "You handle budgets.")
	for _, instruction := range []string{`""`, `"  \n"`} {
		other := mustRenderSpace(t, strings.Replace(in, "systemInstruction: You handle budgets.,", "systemInstruction: "+instruction+",", 1))
		if got, want := sectionText(other, "identity"), strings.Replace(identity, "You handle budgets.\n", "", 1); got != want {
			t.Errorf("instruction %q: identity\n%q\nwant it without the instruction's line\n%q", instruction, got, want)
		}
	}

	space := sectionText(res, "space")
	inOrder(t, "space", space, "Engineering Ops", "Husam", "Lina", "Ops Agent", "ent-fin")
	if ops := lineWith(t, space, "Ops Agent"); !strings.Contains(ops, "ent-ops") || !strings.Contains(ops, "handles deployments, incidents") {
		t.Errorf("an agent member's line lacks its entity id or description: %q", ops)
	}
	if strings.Contains(space, "ent-lina") {
		t.Errorf("a human member's entity id is shown:\n%s", space)
	}
	lines := strings.Split(strings.TrimSpace(space), "\n")
	if last := lines[len(lines)-1]; !strings.Contains(last, "ent-fin") {
		t.Errorf("the agent itself is not the last member: %q", last)
	}
	if strings.Contains(space, "Finance Agent") {
		t.Errorf("the agent is listed among the members by its name:\n%s", space)
	}
}

func TestSpaceAdminInstructionOnlyForTheAdminOfAMultiAgentSpace(t *testing.T) {
	t.Parallel()
	adminInstruction, tool := spaceAdminInstruction(t), spaceConditionalRule(t, "forbid")
	for _, trigger := range []string{humanMessage, agentMention, planTrigger, jiraTrigger} {
		for _, admin := range []bool{false, true} {
			for _, multi := range []bool{false, true} {
				if trigger == agentMention && !multi {
					continue // no other agent to mention this one
				}
				name := fmt.Sprintf("%s admin=%t multi=%t", strings.Fields(trigger)[1], admin, multi)
				t.Run(name, func(t *testing.T) {
					res := mustRenderSpace(t, spaceYAML(admin, multi, trigger))
					want := admin && multi
					if got := strings.Contains(res.Text, adminInstruction); got != want {
						t.Errorf("admin instruction present: %t, want %t\n%s", got, want, res.Text)
					}
					if got := strings.Contains(res.Text, tool); got != want {
						t.Errorf("%s present: %t, want %t", tool, got, want)
					}
					if !res.OK() {
						t.Errorf("checks: %+v", res.Checks)
					}
				})
			}
		}
	}
	// Another human does not make the space multi-agent; another agent does,
	// wherever it is listed.
	in := strings.Replace(spaceYAML(true, false, humanMessage), "    - {name: Husam, kind: human}\n",
		"    - {name: Husam, kind: human}\n    - {name: Lina, kind: human, entityId: ent-lina}\n", 1)
	if res := mustRenderSpace(t, in); strings.Contains(res.Text, tool) {
		t.Error("two humans and one agent got the admin instruction")
	}
	in = strings.Replace(spaceYAML(true, false, humanMessage), "trigger:",
		"    - {name: Ledger Bot, kind: agent, entityId: ent-ledger}\ntrigger:", 1)
	if res := mustRenderSpace(t, in); !strings.Contains(res.Text, adminInstruction) {
		t.Error("an agent listed after this one did not make the space multi-agent")
	}
}

func TestSpaceMemoriesFiftyNewestFirst(t *testing.T) {
	t.Parallel()
	// memoriesYAML lists n memories, day 1 to day n, in a scrambled order and
	// with their times written three ways; the third way (20:00Z written at
	// +14:00) reads as the next day's 10:00 when compared as text.
	memoriesYAML := func(n int) string {
		if n == 0 {
			return "memories: []"
		}
		var b strings.Builder
		b.WriteString("memories:\n")
		kiribati := time.FixedZone("", 14*3600)
		for i := range n {
			day := (i*7)%n + 1 // 7 is prime to every n used here: each day once
			at := time.Date(2026, 1, day, 9, 0, 0, 0, time.UTC)
			var text string
			switch day % 3 {
			case 0:
				text = at.Format(time.RFC3339)
			case 1:
				text = at.Add(250 * time.Millisecond).Format(time.RFC3339Nano)
			default:
				text = at.Add(11 * time.Hour).In(kiribati).Format(time.RFC3339)
			}
			fmt.Fprintf(&b, "  - {content: \"Memory of day %d.\", updatedAt: %q}\n", day, text)
		}
		return b.String()
	}
	countdown := func(from, to int) []int {
		var out []int
		for d := from; d >= to; d-- {
			out = append(out, d)
		}
		return out
	}
	cases := []struct {
		n    int
		want []int // the days shown, in order
	}{
		{61, countdown(61, 12)},
		{51, countdown(51, 2)},
		{50, countdown(50, 1)},
		{3, []int{3, 2, 1}},
		{0, nil},
	}
	day := regexp.MustCompile(`Memory of day (\d+)\.`)
	for _, c := range cases {
		t.Run(fmt.Sprint(c.n), func(t *testing.T) {
			res := mustRenderSpace(t, spaceYAML(false, false, planTrigger, memoriesYAML(c.n)))
			block := sectionText(res, "memories")
			var got []int
			for _, m := range day.FindAllStringSubmatch(block, -1) {
				d, _ := strconv.Atoi(m[1])
				got = append(got, d)
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("memories shown: days %v, want %v\n%s", got, c.want, block)
			}
			if strings.TrimSpace(block) == "" {
				t.Error("no memories block: it stays, saying there is nothing to show")
			}
		})
	}
}

func TestSpacePayloadKeepsKeyOrder(t *testing.T) {
	t.Parallel()
	// Keys in no sorted order, nested, with text that JSON must escape.
	const want = `{"zeta":1,"alpha":{"y":true,"b":null,"a":[3,"<x>",{"k2":"v","k1":1.5}]},"msg":"line 1\nsaid \"hi\""}`
	jsonIn := `{"now": "2026-03-02T09:00:00Z",
 "agent": {"name": "Finance Agent", "entityId": "ent-fin"},
 "space": {"name": "Engineering Ops", "members": [{"name": "Finance Agent", "kind": "agent", "entityId": "ent-fin"}]},
 "trigger": {"type": "service", "serviceName": "Jira", "payload":
   {"zeta": 1, "alpha": {"y": true, "b": null, "a": [3, "<x>", {"k2": "v", "k1": 1.5}]}, "msg": "line 1\nsaid \"hi\""}}}`
	yamlIn := spaceYAML(false, false, `{type: service, serviceName: Jira, payload: {zeta: 1, alpha: {y: true, b: null, a: [3, "<x>", {k2: v, k1: 1.5}]}, msg: "line 1\nsaid \"hi\""}}`)
	for name, in := range map[string]string{"json": jsonIn, "yaml": yamlIn} {
		t.Run(name, func(t *testing.T) {
			res, err := fixture.Library(t).Render(context.Background(), "space", engine.Input{Name: "input." + name, Data: []byte(in)})
			if err != nil {
				t.Fatal(err)
			}
			// The payload stands on a line of its own, compact, in the input's key order.
			if block := sectionText(res, "trigger"); !strings.Contains(block, "\n"+want+"\n") {
				t.Errorf("payload:\n%s\nwant the line:\n%s", block, want)
			}
		})
	}
}

// TestSpaceConcurrentRunNotice: the notice of the agent's other active
// runs is the last block, only when there are some, each run in the order
// given with its trigger, status and how long ago it started or was queued.
func TestSpaceConcurrentRunNotice(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		runs string
		want [][]string // per run, in order: what its line shows
	}{
		{"none", "otherActiveRuns: []", nil},
		{"left out", "", nil},
		{"one", `otherActiveRuns: [{id: run-xyz, status: running, startedAt: "2026-03-02T08:59:30Z", trigger: {type: plan, name: Morning Report}}]`,
			[][]string{{"run-xyz", "plan", "Morning Report", "running", "30s ago"}}},
		{"two, in the order given", `otherActiveRuns:
  - {id: run-b, status: pending, startedAt: "2026-03-02T08:58:00Z", trigger: {type: service, name: Jira}}
  - {id: run-a, status: running, startedAt: "2026-03-02T07:45:00+00:00", trigger: {type: space_message, name: Engineering Ops}}`,
			[][]string{{"run-b", "service", "Jira", "pending", "2m ago"}, {"run-a", "space_message", "Engineering Ops", "running", "1h 15m ago"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := mustRenderSpace(t, spaceYAML(false, true, humanMessage, c.runs))
			block := sectionText(res, "runs")
			if (block != "") != (c.want != nil) {
				t.Fatalf("notice present: %t, want %t (sections %q)", block != "", c.want != nil, sectionNames(res))
			}
			if c.want == nil {
				return
			}
			if last := res.Sections[len(res.Sections)-1]; last.Name != "runs" || last.End != len(res.Text) {
				t.Errorf("the notice is not the last block: sections %q", sectionNames(res))
			}
			var ids []string
			for _, run := range c.want {
				ids = append(ids, run[0])
				line := lineWith(t, block, run[0])
				inOrder(t, "the line of run "+run[0], line, run...)
			}
			inOrder(t, "runs", block, ids...)
		})
	}
}

// TestSpaceSharedContext: after the trigger come the current time (in
// UTC), the active goals (completed ones left out; high, then medium, then
// low priority, each priority in the input's order), the memories (newest
// first), the pending and running plans (soonest next run first, those
// without one last, each with its next run in UTC and the time to it) and
// the notice of other runs; further lines of a text are indented under
// their item. With nothing to show, the goals, memories and plans blocks
// stay, and the notice goes.
func TestSpaceSharedContext(t *testing.T) {
	t.Parallel()
	context := `goals:
  - {title: Archive invoices, priority: low}
  - {title: Close Q3, priority: high, status: completed}
  - {title: Close Q4, priority: high}
  - {title: Cloud report, priority: medium, description: "monthly,\nby team"}
  - {title: Payroll move, priority: medium, status: completed}
  - {title: Flag big expenses, priority: high, status: active}
memories:
  - {content: Older., updatedAt: "2026-03-01T09:00:00Z"}
  - {content: "Newer,\non two lines.", updatedAt: "2026-03-02T10:00:00+02:00"}
plans:
  - {name: Digest, status: pending, nextRunAt: "2026-03-06T16:00:00Z"}
  - {name: Adhoc, status: running}
  - {name: Done, status: completed, nextRunAt: "2026-03-02T10:00:00Z"}
  - {name: Broken, status: failed}
  - {name: Late, status: pending, nextRunAt: "2026-03-02T08:55:00Z"}
  - {name: Morning Report, status: running, nextRunAt: "2026-03-03T08:00:00+01:00"}
  - {name: Gone, status: cancelled}
otherActiveRuns: [{id: run-xyz, status: running, startedAt: "2026-03-02T08:59:30Z", trigger: {type: plan, name: Morning Report}}]`
	res := mustRenderSpace(t, spaceYAML(false, true, humanMessage, context))
	if got, want := sectionNames(res), fixture.Variant(t, "space").Manifest().Sections; !slices.Equal(got, want) {
		t.Errorf("sections %q, want every section of the manifest, in its order: %q", got, want)
	}
	if !strings.Contains(sectionText(res, "time"), "2026-03-02T09:00:00Z") {
		t.Errorf("current time:\n%s", sectionText(res, "time"))
	}
	absent := func(what, block string, words ...string) {
		t.Helper()
		for _, w := range words {
			if regexp.MustCompile(`\b` + regexp.QuoteMeta(w) + `\b`).MatchString(block) {
				t.Errorf("%s shows %q:\n%s", what, w, block)
			}
		}
	}
	indented := regexp.MustCompile(`\n[ \t]+`)
	goals := sectionText(res, "goals")
	inOrder(t, "goals", goals, "Close Q4", "Flag big expenses", "Cloud report", "Archive invoices")
	absent("goals", goals, "Close Q3", "Payroll move")
	if !regexp.MustCompile(`monthly,` + indented.String() + `by team`).MatchString(goals) {
		t.Errorf("the second line of a goal's description is not indented under it:\n%s", goals)
	}
	memories := sectionText(res, "memories")
	inOrder(t, "memories", memories, "Newer,", "Older.")
	if !regexp.MustCompile(`Newer,` + indented.String() + `on two lines\.`).MatchString(memories) {
		t.Errorf("the second line of a memory is not indented under it:\n%s", memories)
	}
	plans := sectionText(res, "plans")
	inOrder(t, "plans", plans, "Late", "Morning Report", "Digest", "Adhoc")
	absent("plans", plans, "Done", "Broken", "Gone")
	for plan, shown := range map[string][]string{
		"Late":           {"2026-03-02T08:55:00Z", "5m ago"},
		"Morning Report": {"2026-03-03T07:00:00Z", "in 22h"},
		"Digest":         {"2026-03-06T16:00:00Z", "in 4d 7h"},
	} {
		inOrder(t, "the line of plan "+plan, lineWith(t, plans, plan), shown...)
	}
	if line := lineWith(t, plans, "Adhoc"); regexp.MustCompile(`\d`).MatchString(line) {
		t.Errorf("a plan without a next run shows a time: %q", line)
	}
	if !strings.Contains(sectionText(res, "runs"), "run-xyz") {
		t.Errorf("no notice of the other run: sections %q", sectionNames(res))
	}

	// Nothing to show: the blocks stay, and the notice goes.
	res = mustRenderSpace(t, spaceYAML(false, true, humanMessage,
		"goals: [{title: Close Q3, priority: high, status: completed}]",
		"plans: [{name: Done, status: completed}]"))
	want := slices.DeleteFunc(slices.Clone(fixture.Variant(t, "space").Manifest().Sections), func(s string) bool { return s == "runs" })
	if got := sectionNames(res); !slices.Equal(got, want) {
		t.Errorf("empty context: sections %q, want %q", got, want)
	}
	absent("goals", sectionText(res, "goals"), "Close Q3")
	absent("plans", sectionText(res, "plans"), "Done")
}

func TestSpaceRefusals(t *testing.T) {
	t.Parallel()
	valid := func(trigger string) string { return spaceYAML(false, true, trigger) }
	cases := []struct {
		name   string
		input  string
		field  string
		reason string
	}{
		{"unknown trigger type", valid(`{type: webhook}`), "/trigger/type", "must be one of"},
		{"trigger type of the wrong type", valid(`{type: 3}`), "/trigger/type", "must be one of"},
		{"no trigger", strings.Replace(valid(planTrigger), "trigger: "+planTrigger, "", 1), "/trigger", "required"},
		{"plan without its name", valid(`{type: plan}`), "/trigger/planName", "required"},
		{"service without a payload", valid(`{type: service, serviceName: Jira}`), "/trigger/payload", "required"},
		{"payload not an object", valid(`{type: service, serviceName: Jira, payload: [1]}`), "/trigger/payload", "expected object"},
		{"payload on a plan", valid(`{type: plan, planName: P, payload: {a: 1}}`), "/trigger/payload", `"payload" is not allowed here`},
		{"message without a sender", valid(`{type: space_message, message: hi}`), "/trigger/from", "required"},
		{"mention without a reason", valid(`{type: space_message, from: {name: Ops Agent, kind: agent}, message: hi}`), "/trigger/mentionReason", "required"},
		{"mention reason from a human", valid(`{type: space_message, from: {name: Husam, kind: human}, message: hi, mentionReason: x}`), "/trigger/mentionReason", "not allowed here"},
		{"misspelt field", valid(`{type: plan, planname: P}`), "/trigger/planName", "required"},
		{"agent not a member", strings.Replace(valid(planTrigger), "entityId: ent-fin}\ntrigger", "entityId: ent-finance}\ntrigger", 1), "/agent/entityId", "not one of"},
		{"agent member without an entity id", strings.Replace(valid(planTrigger), "kind: agent, entityId: ent-ops,", "kind: agent,", 1), "/space/members/1/entityId", "required"},
		{"repeated entity id", strings.Replace(valid(planTrigger), "entityId: ent-ops", "entityId: ent-fin", 1), "/space/members/2/entityId", "repeats"},
		{"now without a time zone", strings.Replace(valid(planTrigger), `"2026-03-02T09:00:00Z"`, `"2026-03-02 09:00"`, 1), "/now", "date-time"},
		{"unknown goal priority", valid(planTrigger) + "goals: [{title: G, priority: urgent}]\n", "/goals/0/priority", "must be one of"},
		{"unknown plan status", valid(planTrigger) + "plans: [{name: P, status: paused}]\n", "/plans/0/status", "must be one of"},
		{"memory time not a time", valid(planTrigger) + "memories: [{content: M, updatedAt: yesterday}]\n", "/memories/0/updatedAt", "date-time"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := renderSpace(t, c.input)
			e := engine.AsError(err)
			if e == nil || e.Kind != engine.KindInput || e.Field != c.field || !strings.Contains(e.Reason, c.reason) {
				t.Fatalf("got %v (field %q), want %q at %s", err, e.Field, c.reason, c.field)
			}
			if !strings.HasPrefix(e.Position, "input.yaml:") {
				t.Errorf("no position in the input: %q", e.Position)
			}
		})
	}
	// The hints say what the field is for.
	_, err := renderSpace(t, valid(`{type: webhook}`))
	if msg := err.Error(); !strings.Contains(msg, `"space_message", "plan", "service"`) || !strings.Contains(msg, `got "webhook"`) {
		t.Errorf("hints for a bad trigger type: %s", msg)
	}
	// A field of another trigger: the hint is the field's description in the schema.
	_, err = renderSpace(t, valid(`{type: plan, planName: P, payload: {a: 1}}`))
	if msg, d := err.Error(), schemaDescription(t, "space", "/properties/trigger/properties/payload"); !strings.Contains(msg, "hint: this field is: "+d) {
		t.Errorf("hints for a field of another trigger: %s\nwant the description %q", msg, d)
	}
}

// The manifest's checks hold the seed's rule on every render, whatever the
// templates say: a working copy whose templates give every agent the admin
// instruction renders no prompt for a non-admin or a single-agent space,
// and one whose admin instruction is empty none for the admin of a
// multi-agent space.
func TestSpaceCheckKeepsDelegateToAgentFromNonAdmins(t *testing.T) {
	t.Parallel()
	tool, adminWords := spaceConditionalRule(t, "forbid"), spaceConditionalRule(t, "require")
	dir := fixture.LibraryCopy(t)
	write := func(file string, edit func(string) string) {
		t.Helper()
		p := filepath.Join(dir, "templates", "space", file)
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(edit(string(b))), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	load := func() *engine.Library { return fixture.LoadDir(t, dir) }
	render := func(lib *engine.Library, input string) (*engine.Result, error) {
		return lib.Render(context.Background(), "space", engine.Input{Name: "input.yaml", Data: []byte(input)})
	}

	// A broken admin condition: every agent is told about the admin's tool.
	identity, _ := fs.ReadFile(promptsmith.FS(), "templates/space/identity.md.tmpl")
	write("identity.md.tmpl", func(s string) string { return s + "{{ template \"_admin.tmpl\" }}\n" })
	lib := load()
	for _, c := range []struct {
		name         string
		admin, multi bool
	}{{"non-admin", false, true}, {"admin of a single-agent space", true, false}, {"single agent", false, false}} {
		res, err := render(lib, spaceYAML(c.admin, c.multi, humanMessage))
		e := engine.AsError(err)
		if e == nil || e.Kind != engine.KindCheck || !strings.Contains(e.Reason, fmt.Sprintf("forbid %q: found at line", tool)) {
			t.Errorf("%s: got %v, want a failed check", c.name, err)
			continue
		}
		if res == nil || res.OK() || !strings.Contains(res.Text, tool) {
			t.Errorf("%s: a failed check returns the Result that failed it", c.name)
		}
	}
	if _, err := render(lib, spaceYAML(true, true, humanMessage)); err != nil {
		t.Errorf("the admin of a multi-agent space: %v", err)
	}

	// The other half: the admin of a multi-agent space must get the instruction.
	write("identity.md.tmpl", func(string) string { return string(identity) })
	write("_admin.tmpl", func(string) string { return "" })
	_, err := render(load(), spaceYAML(true, true, planTrigger))
	if e := engine.AsError(err); e == nil || e.Kind != engine.KindCheck || !strings.Contains(e.Reason, fmt.Sprintf("require %q", adminWords)) {
		t.Errorf("admin without the instruction: got %v, want a failed check", err)
	}
}

// Every example renders with every check passing, and the examples cover
// each trigger for the admin and a non-admin of multi- and single-agent
// spaces (an agent's mention needs another agent: multi-agent only).
func TestSpaceExamplesCoverTheSeed(t *testing.T) {
	t.Parallel()
	lib, v := fixture.Library(t), fixture.Variant(t, "space")
	have := map[string]bool{}
	for _, ex := range v.Examples() {
		have[ex] = true
	}
	for _, trigger := range []string{"message", "mention", "plan", "service"} {
		for _, role := range []string{"admin", "nonadmin"} {
			for _, space := range []string{"multi", "single"} {
				name := trigger + "-" + role + "-" + space
				if trigger == "mention" && space == "single" {
					continue
				}
				if !have[name] {
					t.Errorf("no example %s", name)
				}
			}
		}
	}
	// In a single-agent space the admin flag changes nothing.
	for _, name := range []string{"message-admin-single", "plan-admin-single", "service-admin-single"} {
		admin, _ := v.Example(name)
		if !strings.Contains(string(admin.Data), "isAdmin: true") {
			t.Fatalf("%s is not an admin's", name)
		}
		nonadmin := engine.Input{Name: name, Data: []byte(strings.Replace(string(admin.Data), "isAdmin: true", "isAdmin: false", 1))}
		a, err1 := lib.Render(context.Background(), "space", admin)
		b, err2 := lib.Render(context.Background(), "space", nonadmin)
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if a.Text != b.Text {
			t.Errorf("%s: the admin flag changed a single-agent prompt", name)
		}
	}
}

// BenchmarkSpace compares the whole pipeline with a bare text/template
// Execute of the same section templates on already-decoded data, as
// BenchmarkDelegation does, for the fullest example and for the one whose
// memories must be sorted by time and cut to 50.
func BenchmarkSpace(b *testing.B) {
	lib, v := fixture.Library(b), fixture.Variant(b, "space")
	for _, ex := range []string{"message-admin-multi", "many-memories"} {
		in, err := v.Example(ex)
		if err != nil {
			b.Fatal(err)
		}
		// The gateway sends JSON.
		var data any
		if err := yaml.Unmarshal(in.Data, &data); err != nil {
			b.Fatal(err)
		}
		if in.Data, err = json.Marshal(data); err != nil {
			b.Fatal(err)
		}
		res, err := lib.Render(context.Background(), "space", in)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(ex+"/pipeline", func(b *testing.B) { benchPipeline(b, lib, "space", in, len(res.Text)) })
		b.Run(ex+"/bare", func(b *testing.B) {
			var data map[string]any
			if err := json.Unmarshal(in.Data, &data); err != nil {
				b.Fatal(err)
			}
			spaceDefaults(data)
			benchBare(b, v, data, len(res.Text))
		})
	}
}

// spaceDefaults fills in the schema's defaults, as the pipeline does.
func spaceDefaults(data map[string]any) {
	fill := func(m map[string]any, key string, v any) {
		if _, ok := m[key]; !ok {
			m[key] = v
		}
	}
	for _, list := range []string{"goals", "memories", "plans", "otherActiveRuns"} {
		fill(data, list, []any{})
	}
	agent := data["agent"].(map[string]any)
	fill(agent, "systemInstruction", "")
	fill(agent, "isAdmin", false)
	for _, m := range data["space"].(map[string]any)["members"].([]any) {
		fill(m.(map[string]any), "description", "")
	}
	for _, g := range data["goals"].([]any) {
		fill(g.(map[string]any), "status", "active")
		fill(g.(map[string]any), "description", "")
	}
	// What the engine adds for a variant with a budget: nothing cut.
	data["budget"] = map[string]any{"max_tokens": 0, "omitted": map[string]any{
		"plans": 0, "low_goals": 0, "medium_goals": 0, "memories": 0}}
}
