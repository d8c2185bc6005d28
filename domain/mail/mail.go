// Package mail holds every email template of Counsel in one place
// (docs/decisions.md §16): each builds a Message with a plain-text body
// and its HTML alternative, with links under the public URL. The use
// cases queue them (ports.Mail); the outbox sends them.
package mail

import (
	"bytes"
	htmltemplate "html/template"
	"strings"
	texttemplate "text/template"
	"time"
)

// Message is an email's content.
type Message struct {
	Kind    string // what it is, as the outbox lists it
	Subject string
	Text    string
	HTML    string
}

// Kinds of message.
const (
	KindOwnerNotice = "ownerNotice"
)

// Contract is what a template shows of a contract.
type Contract struct {
	ID         int64
	Name       string
	Status     string
	EndDate    *time.Time
	NoticeDate *time.Time
	AutoRenew  bool
}

// Links builds the addresses a message points to.
type Links struct {
	// PublicURL is COUNSEL_PUBLIC_URL without a trailing slash.
	PublicURL string
}

// Contract is the console page of contract id.
func (l Links) Contract(id int64) string {
	return strings.TrimRight(l.PublicURL, "/") + "/console/contracts/" + itoa(id)
}

func itoa(n int64) string {
	var b [20]byte
	i := len(b)
	neg := n < 0
	if neg {
		n = -n
	}
	for {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
		if n == 0 {
			break
		}
	}
	if neg {
		i--
		b[i] = '-'
	}
	return string(b[i:])
}

// Outcome is how a signing ended, for the owner's notice.
type Outcome int

// Signing outcomes.
const (
	Declined Outcome = iota + 1
	Expired
	Completed
)

// OwnerNotice tells a contract's owner how its signing ended: a signer
// declined (who, and the reason), the submission expired, or every
// party signed.
func OwnerNotice(l Links, c Contract, o Outcome, signer, reason string) Message {
	d := noticeData{Contract: c, Link: l.Contract(c.ID), Signer: oneLine(signer), Reason: oneLine(reason)}
	if d.Signer == "" {
		d.Signer = "A signer"
	}
	if d.Reason == "" {
		d.Reason = "no reason given"
	}
	var subject string
	switch o {
	case Declined:
		subject, d.Declined = "Declined: "+oneLine(c.Name), true
	case Expired:
		subject, d.Expired = "Signing expired: "+oneLine(c.Name), true
	default:
		subject, d.Completed = "Signed by every party: "+oneLine(c.Name), true
	}
	return Message{Kind: KindOwnerNotice, Subject: subject, Text: render(noticeText, d), HTML: renderHTML(noticeHTML, d)}
}

type noticeData struct {
	Contract
	Link                         string
	Signer, Reason               string
	Declined, Expired, Completed bool
}

var noticeText = texttemplate.Must(texttemplate.New("notice").Parse(
	`{{if .Declined}}{{.Signer}} declined to sign "{{.Name}}".
Reason: {{.Reason}}

The contract is now Declined. You can revise it and send it for signing again.
{{else if .Expired}}The signing of "{{.Name}}" expired before every party signed.

The contract is now Expired.
{{else}}Every party has signed "{{.Name}}".

The signed documents are available from the contract.
{{end}}
Open the contract: {{.Link}}

You receive this because you own the contract in Counsel.
`))

var noticeHTML = htmltemplate.Must(htmltemplate.New("notice").Parse(
	`<!doctype html><html><body>
{{if .Declined}}<p>{{.Signer}} declined to sign <strong>{{.Name}}</strong>.</p>
<p>Reason: {{.Reason}}</p>
<p>The contract is now Declined. You can revise it and send it for signing again.</p>
{{else if .Expired}}<p>The signing of <strong>{{.Name}}</strong> expired before every party signed.</p>
<p>The contract is now Expired.</p>
{{else}}<p>Every party has signed <strong>{{.Name}}</strong>.</p>
<p>The signed documents are available from the contract.</p>
{{end}}<p><a href="{{.Link}}">Open the contract</a></p>
<p style="color:#555">You receive this because you own the contract in Counsel.</p>
</body></html>
`))

func render(t *texttemplate.Template, d any) string {
	var b bytes.Buffer
	if err := t.Execute(&b, d); err != nil {
		panic(err) // the templates are fixed and their data typed: a failure is a bug
	}
	return b.String()
}

func renderHTML(t *htmltemplate.Template, d any) string {
	var b bytes.Buffer
	if err := t.Execute(&b, d); err != nil {
		panic(err)
	}
	return b.String()
}

// oneLine keeps a value on one line (subjects, names in sentences).
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// KindKeyDateDigest is the owner's key-date digest.
const KindKeyDateDigest = "keyDateDigest"

// KeyDate is one contract of a key-date digest: its notice day is
// DaysLeft days away and it came within Threshold days of it.
type KeyDate struct {
	Contract
	Threshold int
	DaysLeft  int
}

// KeyDateDigest lists to a contract owner (named by name) the contracts
// whose notice date came within a threshold since the last digest
// (docs/decisions.md §16): for each, the notice date, the end date,
// whether it renews by itself, its status and its console link. thresholds
// (ascending) are the configured ones, named in the footer.
func KeyDateDigest(l Links, name string, items []KeyDate, thresholds []int) Message {
	d := digestData{Name: oneLine(name), Thresholds: daysList(thresholds)}
	for _, it := range items {
		it.Name = oneLine(it.Name)
		d.Items = append(d.Items, digestItem{KeyDate: it, Link: l.Contract(it.ID),
			Notice: dateOf(it.NoticeDate), End: dateOf(it.EndDate), Left: daysLeft(it.DaysLeft)})
	}
	subject := "Notice dates coming up: " + itoa(int64(len(items))) + " contracts"
	if len(items) == 1 {
		subject = "Notice date coming up: " + items[0].Name
	}
	return Message{Kind: KindKeyDateDigest, Subject: oneLine(subject), Text: render(digestText, d), HTML: renderHTML(digestHTML, d)}
}

type digestData struct {
	Name       string
	Thresholds string
	Items      []digestItem
}

type digestItem struct {
	KeyDate
	Link, Notice, End, Left string
}

// dateOf writes a date as "Thu 1 Apr 2027" (UTC), "none" for nil.
func dateOf(t *time.Time) string {
	if t == nil {
		return "none"
	}
	return t.UTC().Format("Mon 2 Jan 2006")
}

func daysLeft(n int) string {
	switch n {
	case 0:
		return "today is the last day"
	case 1:
		return "1 day left"
	}
	return itoa(int64(n)) + " days left"
}

// daysList writes 7, 30, 90 as "90, 30 and 7 days".
func daysList(ts []int) string {
	var parts []string
	for i := len(ts) - 1; i >= 0; i-- {
		parts = append(parts, itoa(int64(ts[i])))
	}
	if len(parts) == 1 {
		return parts[0] + " days"
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1] + " days"
}

var digestText = texttemplate.Must(texttemplate.New("digest").Parse(
	`{{if .Name}}Hello {{.Name}},

{{end}}The notice dates of {{if eq (len .Items) 1}}this contract{{else}}these contracts{{end}} you own are coming up (dates in UTC):
{{range .Items}}
- {{.Name}}
  Notice by: {{.Notice}} (within {{.Threshold}} days: {{.Left}})
  End date: {{.End}}
  Renews automatically: {{if .AutoRenew}}yes, unless notice is given by the notice date{{else}}no{{end}}
  Status: {{.Status}}
  {{.Link}}
{{end}}
Counsel tells you once as each notice date comes within {{.Thresholds}}; a change of the end date or the notice days starts over the reminders not yet reached.
You receive this because you own these contracts in Counsel.
`))

var digestHTML = htmltemplate.Must(htmltemplate.New("digest").Parse(
	`<!doctype html><html><body>
{{if .Name}}<p>Hello {{.Name}},</p>
{{end}}<p>The notice dates of {{if eq (len .Items) 1}}this contract{{else}}these contracts{{end}} you own are coming up (dates in UTC):</p>
<ul>
{{range .Items}}<li><p><a href="{{.Link}}"><strong>{{.Name}}</strong></a><br>
Notice by: <strong>{{.Notice}}</strong> (within {{.Threshold}} days: {{.Left}})<br>
End date: {{.End}}<br>
Renews automatically: {{if .AutoRenew}}<strong>yes</strong>, unless notice is given by the notice date{{else}}no{{end}}<br>
Status: {{.Status}}</p></li>
{{end}}</ul>
<p style="color:#555">Counsel tells you once as each notice date comes within {{.Thresholds}}; a change of the end date or the notice days starts over the reminders not yet reached.
You receive this because you own these contracts in Counsel.</p>
</body></html>
`))
