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
