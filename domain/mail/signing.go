package mail

import (
	htmltemplate "html/template"
	"strings"
	texttemplate "text/template"
	"time"
)

// Kinds of the embedded signer's messages to signers.
const (
	KindSigningInvitation = "signingInvitation"
	KindSigningReminder   = "signingReminder"
	KindSigningCompleted  = "signingCompleted"
)

// Signer is who a signing message goes to and what it points at.
type Signer struct {
	Name  string // may be empty: the email stands in
	Email string
	// Title names what is signed (the contract's name).
	Title string
	// Link is the signer's personal signing page.
	Link     string
	ExpireAt *time.Time
}

func (s Signer) greeting() string {
	if n := oneLine(s.Name); n != "" {
		return n
	}
	return oneLine(s.Email)
}

// CustomMessage is a sender's own invitation subject and body, which may
// use DocuSeal's variables {{submitter.link}}, {{submitter.name}},
// {{submitter.email}}, {{template.name}} and {{submission.name}}.
type CustomMessage struct{ Subject, Body string }

// Invitation is a signer's invitation: the sender's own message when
// given (a body without the link gets it appended), else Counsel's.
func Invitation(s Signer, m CustomMessage) Message {
	vars := strings.NewReplacer(
		"{{submitter.link}}", s.Link,
		"{{submitter.name}}", s.greeting(),
		"{{submitter.email}}", s.Email,
		"{{template.name}}", s.Title,
		"{{submission.name}}", s.Title,
	)
	subject := oneLine(vars.Replace(m.Subject))
	if subject == "" {
		subject = "Please sign: " + oneLine(s.Title)
	}
	body := vars.Replace(m.Body)
	if strings.TrimSpace(body) == "" {
		return Message{Kind: KindSigningInvitation, Subject: subject,
			Text: render(invitationText, signerData(s)), HTML: renderHTML(invitationHTML, signerData(s))}
	}
	if !strings.Contains(m.Body, "{{submitter.link}}") {
		body = strings.TrimRight(body, "\n") + "\n\n" + s.Link + "\n"
	}
	return Message{Kind: KindSigningInvitation, Subject: subject, Text: body}
}

// Reminder reminds a signer who has neither signed nor declined.
func Reminder(s Signer) Message {
	return Message{Kind: KindSigningReminder, Subject: "Reminder: please sign " + oneLine(s.Title),
		Text: render(reminderText, signerData(s)), HTML: renderHTML(reminderHTML, signerData(s))}
}

// SignedCopy is the copy of a completed signing sent to each signer and
// to the contract's owner. With Attached the signed PDF and the audit
// certificate are attached; otherwise they are too large to attach and
// SignedURL and AuditURL, signed links that work until LinksUntil, take
// their place. ContractLink, for the owner, is the contract's console
// page.
type SignedCopy struct {
	Name, Email, Title  string
	Attached            bool
	SignedURL, AuditURL string
	LinksUntil          time.Time
	ContractLink        string
}

// Completion is the message of c.
func Completion(c SignedCopy) Message {
	d := completedData{SignedCopy: c, Greeting: Signer{Name: c.Name, Email: c.Email}.greeting(), Title: oneLine(c.Title),
		Until: c.LinksUntil.UTC().Format("2 January 2006 15:04 UTC")}
	return Message{Kind: KindSigningCompleted, Subject: "Signed copy: " + d.Title,
		Text: render(completedText, d), HTML: renderHTML(completedHTML, d)}
}

type signerTemplateData struct {
	Greeting, Title, Link, Until string
}

func signerData(s Signer) signerTemplateData {
	d := signerTemplateData{Greeting: s.greeting(), Title: oneLine(s.Title), Link: s.Link}
	if s.ExpireAt != nil {
		d.Until = s.ExpireAt.UTC().Format("2 January 2006 15:04 UTC")
	}
	return d
}

type completedData struct {
	SignedCopy
	Greeting, Title, Until string
}

var invitationText = texttemplate.Must(texttemplate.New("invitation").Parse(
	`Hello {{.Greeting}},

You are asked to sign "{{.Title}}". Open this link to read the documents and sign or decline:

{{.Link}}
{{if .Until}}
The link works until {{.Until}}.
{{end}}
The link is personal to you; please do not forward it.
`))

var invitationHTML = htmltemplate.Must(htmltemplate.New("invitation").Parse(
	`<!doctype html><html><body>
<p>Hello {{.Greeting}},</p>
<p>You are asked to sign <strong>{{.Title}}</strong>. Open this link to read the documents and sign or decline:</p>
<p><a href="{{.Link}}">{{.Link}}</a></p>
{{if .Until}}<p>The link works until {{.Until}}.</p>
{{end}}<p style="color:#555">The link is personal to you; please do not forward it.</p>
</body></html>
`))

var reminderText = texttemplate.Must(texttemplate.New("reminder").Parse(
	`Hello {{.Greeting}},

This is a reminder: "{{.Title}}" is still waiting for your signature. Open this link to read the documents and sign or decline:

{{.Link}}
{{if .Until}}
The link works until {{.Until}}.
{{end}}
The link is personal to you; please do not forward it. If you have already answered, you can ignore this email.
`))

var reminderHTML = htmltemplate.Must(htmltemplate.New("reminder").Parse(
	`<!doctype html><html><body>
<p>Hello {{.Greeting}},</p>
<p>This is a reminder: <strong>{{.Title}}</strong> is still waiting for your signature. Open this link to read the documents and sign or decline:</p>
<p><a href="{{.Link}}">{{.Link}}</a></p>
{{if .Until}}<p>The link works until {{.Until}}.</p>
{{end}}<p style="color:#555">The link is personal to you; please do not forward it. If you have already answered, you can ignore this email.</p>
</body></html>
`))

var completedText = texttemplate.Must(texttemplate.New("completed").Parse(
	`Hello {{.Greeting}},

Every party has signed "{{.Title}}".
{{if .Attached}}
The signed document and its audit certificate are attached. The signed document carries a digital signature; keep it for your records.
{{else}}
The signed document and its audit certificate are too large to attach. Download them from these links, which work until {{.Until}}:

Signed document: {{.SignedURL}}
Audit certificate: {{.AuditURL}}
{{end}}{{if .ContractLink}}
Open the contract: {{.ContractLink}}
{{end}}`))

var completedHTML = htmltemplate.Must(htmltemplate.New("completed").Parse(
	`<!doctype html><html><body>
<p>Hello {{.Greeting}},</p>
<p>Every party has signed <strong>{{.Title}}</strong>.</p>
{{if .Attached}}<p>The signed document and its audit certificate are attached. The signed document carries a digital signature; keep it for your records.</p>
{{else}}<p>The signed document and its audit certificate are too large to attach. Download them from these links, which work until {{.Until}}:</p>
<ul><li><a href="{{.SignedURL}}">Signed document</a></li><li><a href="{{.AuditURL}}">Audit certificate</a></li></ul>
{{end}}{{if .ContractLink}}<p><a href="{{.ContractLink}}">Open the contract</a></p>
{{end}}</body></html>
`))
