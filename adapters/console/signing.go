package console

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"counsel/domain"
	"counsel/domain/account"
	"counsel/domain/contract"
	"counsel/domain/signing"
	"counsel/ports"
)

// The signing page: the submit-for-signing form (documents, signers,
// order, message, expiry) while the contract may be submitted, and the
// provider's template and submissions with each signer's progress. A
// signer's link comes only to ContractEdit holders: the use case blanks
// it for others, and the page shows no copy control without it.

// signerRows is how many signer rows the form shows at first; "Add a
// signer" (a plain link) asks for more.
const (
	signerRows    = 2
	maxSignerRows = 10
)

// signingData is what the signing page shows.
type signingData struct {
	Contract    contract.Contract
	Documents   []contract.Document // the originals that may be signed
	CanSubmit   bool
	NoSubmit    string // why the form is not shown
	Rows        []int
	MoreRows    string
	Template    *signing.Template
	Submissions []signing.Submission
	ProviderErr string
}

func (c *console) signingPage(r *http.Request, p *page, id int64) error {
	ctx := r.Context()
	ct, err := c.svc.Contracts.Contract(ctx, id)
	if err != nil {
		return err
	}
	d := signingData{Contract: ct}
	docs, err := c.svc.Contracts.Documents(ctx, id)
	if err != nil {
		return err
	}
	for _, doc := range docs {
		if doc.Kind == "" || doc.Kind == contract.KindOriginal {
			d.Documents = append(d.Documents, doc)
		}
	}
	subErr := contract.CheckSubmitForSigning(ct.Status)
	switch {
	case !p.Principal.Can(account.ContractEdit):
		d.NoSubmit = "Sending for signature needs the ContractEdit permission."
	case subErr != nil:
		d.NoSubmit = domain.ErrorMessage(subErr) + "."
	case len(d.Documents) == 0:
		d.NoSubmit = "Upload a PDF or DOCX document to the contract first."
	default:
		d.CanSubmit = true
	}
	n, _ := strconv.Atoi(r.URL.Query().Get("signers"))
	n = max(n, rowsInForm(p.Form), signerRows)
	n = min(n, maxSignerRows)
	for i := range n {
		d.Rows = append(d.Rows, i)
	}
	if n < maxSignerRows {
		d.MoreRows = contractPath(id) + "/signing?signers=" + strconv.Itoa(n+1) + "#signers"
	}
	if ct.IsDigital() {
		// The provider may be down: the page still shows the contract.
		t, err := c.svc.Signing.Template(ctx, id)
		if err == nil {
			d.Template = &t
			d.Submissions, err = c.svc.Signing.Submissions(ctx, id)
		}
		if err != nil {
			if code := domain.ErrorCode(err); code != domain.EUPSTREAM && code != domain.ENOTFOUND {
				return err
			}
			d.ProviderErr = domain.ErrorMessage(err)
		}
		// Reading submissions may have applied an outcome: show it.
		if ct2, err := c.svc.Contracts.Contract(ctx, id); err == nil {
			d.Contract = ct2
		}
	}
	p.Title = "Signing · " + ct.Name
	p.Data = d
	return nil
}

var rowRe = regexp.MustCompile(`^submitters\[(\d+)\]\.`)

// rowsInForm is the number of signer rows a submitted form had.
func rowsInForm(v url.Values) int {
	n := 0
	for k := range v {
		if m := rowRe.FindStringSubmatch(k); m != nil {
			i, _ := strconv.Atoi(m[1])
			n = max(n, i+1)
		}
	}
	return n
}

func (c *console) signingShow(w http.ResponseWriter, r *http.Request, p *page) {
	if err := c.signingPage(r, p, pathID(r)); err != nil {
		c.fail(w, r, p, err)
		return
	}
	p.Form.Set("order", signing.OrderPreserved)
	p.Form.Set("sendEmail", "true")
	c.render(w, r, 0, "signing", p)
}

// signingForm reads the submit form. Empty signer rows are skipped; rows
// maps the use case's submitter index back to the form's row.
func signingForm(v url.Values) (ports.SubmitForSigningInput, []int, error) {
	f := domain.FieldErrors{}
	in := ports.SubmitForSigningInput{SendEmail: v.Get("sendEmail") == "true", Order: v.Get("order"),
		Message: signing.Message{Subject: v.Get("message.subject"), Body: v.Get("message.body")}}
	in.DocumentIDs = ids(v, "documentIds", f)
	var rows []int
	for i := range min(rowsInForm(v), maxSignerRows) {
		key := func(n string) string { return fmt.Sprintf("submitters[%d].%s", i, n) }
		s := ports.SigningSubmitter{Name: v.Get(key("name")), Email: v.Get(key("email")), Phone: v.Get(key("phone")), Role: v.Get(key("role"))}
		if strings.TrimSpace(s.Name+s.Email+s.Phone+s.Role) == "" {
			continue
		}
		in.Submitters = append(in.Submitters, s)
		rows = append(rows, i)
	}
	if t := dateField(v, "expireAt", f); t != nil {
		in.ExpireAt = t
	}
	return in, rows, f.Err()
}

// rowErrors renames the use case's submitters[i] field errors to the
// form's rows.
func rowErrors(err error, rows []int) error {
	var de *domain.Error
	if !errors.As(err, &de) || len(de.Fields) == 0 {
		return err
	}
	fields := map[string][]string{}
	for k, v := range de.Fields {
		if m := rowRe.FindStringSubmatch(k); m != nil {
			if i, _ := strconv.Atoi(m[1]); i < len(rows) {
				k = fmt.Sprintf("submitters[%d].%s", rows[i], k[len(m[0]):])
			}
		}
		if k == "submitters" {
			k = "submitters[0].email"
		}
		fields[k] = append(fields[k], v...)
	}
	return &domain.Error{Code: de.Code, Message: de.Message, Fields: fields}
}

// signingSubmit sends the contract for signing (or again, after a
// decline).
func (c *console) signingSubmit(w http.ResponseWriter, r *http.Request, p *page) {
	id := pathID(r)
	in, rows, err := signingForm(p.Form)
	if err == nil {
		if _, err = c.svc.Signing.SubmitForSigning(r.Context(), id, in); err == nil {
			c.redirect(w, r, contractPath(id)+"/signing", "Sent for signature.")
			return
		}
		err = rowErrors(err, rows)
	}
	if lerr := c.signingPage(r, p, id); lerr != nil {
		c.fail(w, r, p, lerr)
		return
	}
	c.formFail(w, r, p, "signing", err)
}
