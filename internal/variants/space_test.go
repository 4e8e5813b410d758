package variants_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/promptsmith/promptsmith"
	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/internal/fixture"
)

// The admin instruction, as seed 001 writes it.
const adminInstruction = `You are the admin agent for this space — human messages come to you first. You can:
- Respond directly using sendSpaceMessage
- Delegate to another agent using delegateToAgent(entityId) — your run will be silently canceled and the target agent will receive the original human message as their trigger
- Mention another agent using sendSpaceMessage with mention — your message will appear in the space and the mentioned agent will be triggered
- If no response is needed, simply do nothing — your run will complete silently
`

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

func TestSpaceTriggerBlocks(t *testing.T) {
	cases := []struct {
		name         string
		admin, multi bool
		trigger      string
		want         string
	}{
		{"message from a human", false, true, humanMessage,
			"TRIGGER: This run was triggered by a message from Husam in \"Engineering Ops\":\n" +
				"\"What's our Q4 budget status?\"\n\nUse sendSpaceMessage to respond when ready.\n"},
		{"mention by an agent", false, true, agentMention,
			"TRIGGER: This run was triggered by a message from Ops Agent (agent) in \"Engineering Ops\":\n" +
				"\"Finance, can you pull the Q4 numbers?\"\n" +
				"Mention reason: \"Need Q4 financial data for the weekly report\"\n\n" +
				"Use sendSpaceMessage to respond when ready.\n"},
		{"message text without its surrounding white space", false, false,
			`{type: space_message, from: {name: Husam, kind: human}, message: "\n  Two lines:\n  budget and forecast \n"}`,
			"TRIGGER: This run was triggered by a message from Husam in \"Engineering Ops\":\n" +
				"\"Two lines:\n  budget and forecast\"\n\nUse sendSpaceMessage to respond when ready.\n"},
		{"plan: the closing line follows directly", false, true, planTrigger,
			"TRIGGER: This run was triggered by your scheduled plan \"Morning Report\".\n" +
				"Use sendSpaceMessage to post updates to the relevant spaces.\n"},
		{"service", false, true, jiraTrigger,
			"TRIGGER: This run was triggered by service \"Jira\":\n" +
				`{"event":"ticket_created","ticketId":"PROJ-123","priority":"critical"}` + "\n\n" +
				"Use sendSpaceMessage to post updates or alerts to the relevant spaces.\n"},
		{"message to the admin", true, true, humanMessage,
			"TRIGGER: This run was triggered by a message from Husam in \"Engineering Ops\":\n" +
				"\"What's our Q4 budget status?\"\n\n" + adminInstruction +
				"\nUse sendSpaceMessage to respond when ready.\n"},
		{"mention of the admin", true, true, agentMention,
			"TRIGGER: This run was triggered by a message from Ops Agent (agent) in \"Engineering Ops\":\n" +
				"\"Finance, can you pull the Q4 numbers?\"\n" +
				"Mention reason: \"Need Q4 financial data for the weekly report\"\n\n" + adminInstruction +
				"\nUse sendSpaceMessage to respond when ready.\n"},
		{"plan for the admin: blank lines around the instruction", true, true, planTrigger,
			"TRIGGER: This run was triggered by your scheduled plan \"Morning Report\".\n\n" + adminInstruction +
				"\nUse sendSpaceMessage to post updates to the relevant spaces.\n"},
		{"service for the admin", true, true, jiraTrigger,
			"TRIGGER: This run was triggered by service \"Jira\":\n" +
				`{"event":"ticket_created","ticketId":"PROJ-123","priority":"critical"}` + "\n\n" + adminInstruction +
				"\nUse sendSpaceMessage to post updates or alerts to the relevant spaces.\n"},
		{"plan for the admin of a single-agent space", true, false, planTrigger,
			"TRIGGER: This run was triggered by your scheduled plan \"Morning Report\".\n" +
				"Use sendSpaceMessage to post updates to the relevant spaces.\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := mustRenderSpace(t, spaceYAML(c.admin, c.multi, c.trigger))
			if got := sectionText(res, "trigger"); got != c.want {
				t.Errorf("TRIGGER block:\n%s\nwant:\n%s", got, c.want)
			}
			// The block stands between the members and the current time.
			if !strings.Contains(res.Text, "- You (entity: ent-fin)\n\n"+c.want+"\nCURRENT TIME: 2026-03-02T09:00:00Z\n") {
				t.Errorf("the TRIGGER block is out of place:\n%s", res.Text)
			}
		})
	}
}

// The seed's prompt from its first line to the TRIGGER line, members included.
func TestSpaceHead(t *testing.T) {
	res := mustRenderSpace(t, spaceYAML(false, true, humanMessage))
	want := "You are Finance Agent.\nYou handle budgets.\n\n" +
		"SPACE: \"Engineering Ops\"\nMEMBERS:\n" +
		"- Husam (human)\n" +
		"- Ops Agent (agent, entity: ent-ops) — handles deployments, incidents\n" +
		"- You (entity: ent-fin)\n\n" +
		"TRIGGER: "
	if !strings.HasPrefix(res.Text, want) {
		t.Errorf("prompt head:\n%s\nwant:\n%s", res.Text[:min(len(res.Text), len(want)+40)], want)
	}
	// No system instruction: its line is left out.
	res = mustRenderSpace(t, strings.Replace(spaceYAML(false, false, planTrigger), "systemInstruction: You handle budgets., ", "", 1))
	if !strings.HasPrefix(res.Text, "You are Finance Agent.\n\nSPACE: \"Engineering Ops\"\n") {
		t.Errorf("without an instruction:\n%s", res.Text)
	}
}

func TestSpaceAdminInstructionOnlyForTheAdminOfAMultiAgentSpace(t *testing.T) {
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
					if got := strings.Contains(res.Text, "delegateToAgent"); got != want {
						t.Errorf("delegateToAgent present: %t, want %t", got, want)
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
	if res := mustRenderSpace(t, in); strings.Contains(res.Text, "delegateToAgent") {
		t.Error("two humans and one agent got the admin instruction")
	}
	in = strings.Replace(spaceYAML(true, false, humanMessage), "trigger:",
		"    - {name: Ledger Bot, kind: agent, entityId: ent-ledger}\ntrigger:", 1)
	if res := mustRenderSpace(t, in); !strings.Contains(res.Text, adminInstruction) {
		t.Error("an agent listed after this one did not make the space multi-agent")
	}
}

func TestSpaceMemoriesFiftyNewestFirst(t *testing.T) {
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
	expect := func(days ...int) string {
		var b strings.Builder
		b.WriteString("MEMORIES:\n")
		for _, d := range days {
			fmt.Fprintf(&b, "- Memory of day %d.\n", d)
		}
		if len(days) == 0 {
			b.WriteString("- (none)\n")
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
		want string
	}{
		{61, expect(countdown(61, 12)...)},
		{51, expect(countdown(51, 2)...)},
		{50, expect(countdown(50, 1)...)},
		{3, expect(3, 2, 1)},
		{0, expect()},
	}
	for _, c := range cases {
		t.Run(fmt.Sprint(c.n), func(t *testing.T) {
			res := mustRenderSpace(t, spaceYAML(false, false, planTrigger, memoriesYAML(c.n)))
			if got := sectionText(res, "memories"); got != c.want {
				t.Errorf("memories:\n%s\nwant:\n%s", got, c.want)
			}
		})
	}
}

func TestSpacePayloadKeepsKeyOrder(t *testing.T) {
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
			block := "TRIGGER: This run was triggered by service \"Jira\":\n" + want + "\n\n"
			if !strings.Contains(res.Text, block) {
				t.Errorf("payload:\n%s\nwant:\n%s", sectionText(res, "trigger"), block)
			}
		})
	}
}

func TestSpaceConcurrentRunNotice(t *testing.T) {
	const getMyRuns = "Use getMyRuns for full details if needed. Avoid duplicating work already in progress.\n"
	cases := []struct {
		name string
		runs string
		want string // the end of the prompt
	}{
		{"none", "otherActiveRuns: []", "PLANS (your scheduled triggers):\n- (none)\n"},
		{"left out", "", "PLANS (your scheduled triggers):\n- (none)\n"},
		{"one", `otherActiveRuns: [{id: run-xyz, status: running, startedAt: "2026-03-02T08:59:30Z", trigger: {type: plan, name: Morning Report}}]`,
			"PLANS (your scheduled triggers):\n- (none)\n\n" +
				"⚠ You currently have 1 other active run:\n" +
				"- run-xyz (plan: Morning Report, running, started 30s ago)\n" + getMyRuns},
		{"two, in the order given", `otherActiveRuns:
  - {id: run-b, status: pending, startedAt: "2026-03-02T08:58:00Z", trigger: {type: service, name: Jira}}
  - {id: run-a, status: running, startedAt: "2026-03-02T07:45:00+00:00", trigger: {type: space_message, name: Engineering Ops}}`,
			"PLANS (your scheduled triggers):\n- (none)\n\n" +
				"⚠ You currently have 2 other active runs:\n" +
				"- run-b (service: Jira, pending, queued 2m ago)\n" +
				"- run-a (space_message: Engineering Ops, running, started 1h 15m ago)\n" + getMyRuns},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := mustRenderSpace(t, spaceYAML(false, true, humanMessage, c.runs))
			if !strings.HasSuffix(res.Text, c.want) {
				t.Errorf("prompt ends:\n%s\nwant:\n%s", res.Text[max(0, len(res.Text)-len(c.want)-20):], c.want)
			}
			hasRuns := strings.Contains(c.want, "⚠")
			if strings.Contains(res.Text, "getMyRuns") != hasRuns || (sectionText(res, "runs") != "") != hasRuns {
				t.Errorf("notice present: %t, want %t", strings.Contains(res.Text, "getMyRuns"), hasRuns)
			}
		})
	}
}

func TestSpaceSharedContext(t *testing.T) {
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
	want := "Use sendSpaceMessage to respond when ready.\n\n" +
		"CURRENT TIME: 2026-03-02T09:00:00Z\n\n" +
		"GOALS:\n" +
		"- [high] Close Q4\n" +
		"- [high] Flag big expenses\n" +
		"- [medium] Cloud report — monthly,\n  by team\n" +
		"- [low] Archive invoices\n\n" +
		"MEMORIES:\n" +
		"- Newer,\n  on two lines.\n" +
		"- Older.\n\n" +
		"PLANS (your scheduled triggers):\n" +
		"- Late (pending, next run 2026-03-02T08:55:00Z, 5m ago)\n" +
		"- Morning Report (running, next run 2026-03-03T07:00:00Z, in 22h)\n" +
		"- Digest (pending, next run 2026-03-06T16:00:00Z, in 4d 7h)\n" +
		"- Adhoc (running, no next run scheduled)\n\n" +
		"⚠ You currently have 1 other active run:\n"
	if !strings.Contains(res.Text, want) {
		t.Errorf("shared context:\n%s\nwant:\n%s", res.Text, want)
	}
	var names []string
	for _, s := range res.Sections {
		names = append(names, s.Name)
	}
	if got := strings.Join(names, " "); got != "identity space trigger time goals memories plans runs" {
		t.Errorf("sections: %s", got)
	}

	// Nothing to show: the blocks stay, each saying so.
	res = mustRenderSpace(t, spaceYAML(false, true, humanMessage,
		"goals: [{title: Close Q3, priority: high, status: completed}]",
		"plans: [{name: Done, status: completed}]"))
	want = "GOALS:\n- (none)\n\nMEMORIES:\n- (none)\n\nPLANS (your scheduled triggers):\n- (none)\n"
	if !strings.HasSuffix(res.Text, "CURRENT TIME: 2026-03-02T09:00:00Z\n\n"+want) {
		t.Errorf("empty context:\n%s", res.Text)
	}
}

func TestSpaceRefusals(t *testing.T) {
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
	_, err = renderSpace(t, valid(`{type: plan, planName: P, payload: {a: 1}}`))
	if msg := err.Error(); !strings.Contains(msg, "hint: this field is: service only") {
		t.Errorf("hints for a field of another trigger: %s", msg)
	}
}

// The manifest's checks hold the seed's rule on every render, whatever the
// templates say: a working copy whose template always gives the admin
// instruction renders no prompt for a non-admin or a single-agent space.
func TestSpaceCheckKeepsDelegateToAgentFromNonAdmins(t *testing.T) {
	dir := t.TempDir()
	if err := os.CopyFS(dir, promptsmith.FS()); err != nil {
		t.Fatal(err)
	}
	edit := func(file, old, new string) {
		t.Helper()
		p := filepath.Join(dir, "templates", "space", file)
		b, err := os.ReadFile(p)
		if err != nil || !strings.Contains(string(b), old) {
			t.Fatalf("%s has no %q (%v)", p, old, err)
		}
		if err := os.WriteFile(p, []byte(strings.Replace(string(b), old, new, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	load := func() *engine.Library {
		t.Helper()
		lib, err := engine.LoadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		return lib
	}
	render := func(lib *engine.Library, input string) (*engine.Result, error) {
		return lib.Render(context.Background(), "space", engine.Input{Name: "input.yaml", Data: []byte(input)})
	}

	// A broken admin condition: every agent is told about delegateToAgent.
	edit("trigger.md.tmpl", "{{ if $admin }}", "{{ if true }}")
	lib := load()
	for _, c := range []struct {
		name         string
		admin, multi bool
	}{{"non-admin", false, true}, {"admin of a single-agent space", true, false}, {"single agent", false, false}} {
		res, err := render(lib, spaceYAML(c.admin, c.multi, humanMessage))
		e := engine.AsError(err)
		if e == nil || e.Kind != engine.KindCheck || !strings.Contains(e.Reason, `forbid "delegateToAgent": found at line`) {
			t.Errorf("%s: got %v, want a failed check", c.name, err)
			continue
		}
		if res == nil || res.OK() || !strings.Contains(res.Text, "delegateToAgent") {
			t.Errorf("%s: a failed check returns the Result that failed it", c.name)
		}
	}
	if _, err := render(lib, spaceYAML(true, true, humanMessage)); err != nil {
		t.Errorf("the admin of a multi-agent space: %v", err)
	}

	// The other half: the admin of a multi-agent space must get the instruction.
	edit("trigger.md.tmpl", "{{ if true }}", "{{ if false }}")
	_, err := render(load(), spaceYAML(true, true, planTrigger))
	if e := engine.AsError(err); e == nil || e.Kind != engine.KindCheck || !strings.Contains(e.Reason, `require "You are the admin agent for this space"`) {
		t.Errorf("admin without the instruction: got %v, want a failed check", err)
	}
}

// Every example renders with every check passing, and the examples cover
// each trigger for the admin and a non-admin of multi- and single-agent
// spaces (an agent's mention needs another agent: multi-agent only).
func TestSpaceExamplesCoverTheSeed(t *testing.T) {
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
