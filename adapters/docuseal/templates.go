package docuseal

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"math"
	"net/http"
	"path"
	"strings"

	"counsel/domain"
	"counsel/domain/signing"
)

const (
	pdfContentType  = "application/pdf"
	docxContentType = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
)

// wire shapes of POST /templates/pdf and /templates/docx.
type (
	templateRequest struct {
		Name       string `json:"name,omitempty"`
		ExternalID string `json:"external_id,omitempty"`
		// SharedLink is always false: DocuSeal's default (true) lets
		// anyone holding the template's link start a submission of it.
		SharedLink bool               `json:"shared_link"`
		Documents  []templateDocument `json:"documents"`
	}
	templateDocument struct {
		Name   string          `json:"name"`
		File   string          `json:"file"` // base64
		Fields []templateField `json:"fields,omitempty"`
	}
	templateField struct {
		Name     string         `json:"name"`
		Type     string         `json:"type"`
		Role     string         `json:"role"`
		Required bool           `json:"required"`
		Areas    []templateArea `json:"areas"`
	}
	// templateArea is page-relative: x, y, w, h are fractions of the page's
	// width and height, page counts from 1.
	templateArea struct {
		X    float64 `json:"x"`
		Y    float64 `json:"y"`
		W    float64 `json:"w"`
		H    float64 `json:"h"`
		Page int     `json:"page"`
	}
)

// CreateTemplate builds a DocuSeal template from in.Documents: PDFs go to
// POST /templates/pdf, a set with any DOCX to POST /templates/docx. A
// template made from documents alone has a single role, and DocuSeal refuses
// a submission with more signers than roles, so the last page of the last
// document gets one signature field and one date field per role (see
// docs/decisions.md §6). The template's external_id is in.ExternalID (the
// contract's UUID); DocuSeal updates the template that already has it.
//
// A Community Edition server answers 404 "Pro Edition" to these endpoints:
// that is EUPSTREAM with ErrProEditionRequired as its cause and a message
// telling the user to create the template in DocuSeal instead.
func (c *Client) CreateTemplate(ctx context.Context, in signing.NewTemplate) (signing.Template, error) {
	if len(in.Documents) == 0 {
		return signing.Template{}, domain.Invalid(map[string][]string{"documents": {"at least one document is required"}})
	}
	roles, err := templateRoles(in.Roles)
	if err != nil {
		return signing.Template{}, err
	}

	endpoint := "/templates/pdf"
	kinds := make([]string, len(in.Documents))
	for i, d := range in.Documents {
		switch kinds[i] = documentKind(d); kinds[i] {
		case "docx":
			endpoint = "/templates/docx"
		case "":
			return signing.Template{}, domain.Errorf(domain.EUNSUPPORTED, "DocuSeal accepts PDF and DOCX documents only (%s)", d.FileName)
		}
	}

	body := templateRequest{Name: strings.TrimSpace(in.Name), ExternalID: in.ExternalID}
	for i, d := range in.Documents {
		body.Documents = append(body.Documents, templateDocument{
			Name: documentName(d, i, kinds[i]),
			File: base64.StdEncoding.EncodeToString(d.Content),
		})
	}
	if body.Name == "" {
		body.Name = strings.TrimSuffix(body.Documents[0].Name, path.Ext(body.Documents[0].Name))
	}
	last := len(in.Documents) - 1
	body.Documents[last].Fields = signatureFields(roles, lastPage(in.Documents[last].Content, kinds[last]))

	var t apiTemplate
	if err := c.do(ctx, request{method: http.MethodPost, path: endpoint, body: body, proEdition: true}, &t); err != nil {
		return signing.Template{}, err
	}
	return toTemplate(t), nil
}

// GetTemplate reads GET /templates/{id}. ENOTFOUND for an id DocuSeal does
// not know or that cannot be a DocuSeal id.
func (c *Client) GetTemplate(ctx context.Context, id string) (signing.Template, error) {
	notFound := fmt.Sprintf("signing template %q not found", id)
	n, ok := parseID(id)
	if !ok {
		return signing.Template{}, &domain.Error{Code: domain.ENOTFOUND, Message: notFound}
	}
	var t apiTemplate
	if err := c.do(ctx, request{method: http.MethodGet, path: fmt.Sprintf("/templates/%d", n), notFound: notFound, foreignNotFound: true}, &t); err != nil {
		return signing.Template{}, err
	}
	return toTemplate(t), nil
}

// templateRoles names the template's roles: one per signer, an empty name
// becoming "Signer N" (N counting from 1), and at least one. Names must be
// distinct, ignoring case, since DocuSeal merges the fields of roles with
// one name and matches submitters to roles without regard to case.
func templateRoles(in []string) ([]string, error) {
	if len(in) == 0 {
		return []string{"Signer 1"}, nil
	}
	roles := make([]string, len(in))
	seen := map[string]bool{}
	for i, r := range in {
		r = strings.TrimSpace(r)
		if r == "" {
			r = defaultRole(i)
		}
		key := strings.ToLower(r)
		if seen[key] {
			return nil, domain.Invalid(map[string][]string{"roles": {fmt.Sprintf("role %q is given twice; every signer needs a role of their own", r)}})
		}
		seen[key] = true
		roles[i] = r
	}
	return roles, nil
}

func defaultRole(i int) string { return fmt.Sprintf("Signer %d", i+1) }

// documentKind tells "pdf" from "docx" by the declared media type, else by
// the content's magic bytes; "" for anything else.
func documentKind(d signing.Document) string {
	ct := strings.ToLower(strings.TrimSpace(strings.SplitN(d.ContentType, ";", 2)[0]))
	switch {
	case ct == pdfContentType:
		return "pdf"
	case ct == docxContentType:
		return "docx"
	case ct != "" && ct != "application/octet-stream":
		return ""
	case bytes.HasPrefix(d.Content, []byte("%PDF-")):
		return "pdf"
	case bytes.HasPrefix(d.Content, []byte("PK\x03\x04")) && strings.EqualFold(path.Ext(d.FileName), ".docx"):
		return "docx"
	}
	return ""
}

// documentName is the document's name for DocuSeal, which keeps it as the
// file name, so it carries the extension.
func documentName(d signing.Document, i int, kind string) string {
	name := path.Base(strings.ReplaceAll(strings.TrimSpace(d.FileName), "\\", "/"))
	if name == "" || name == "." || name == "/" {
		name = fmt.Sprintf("document-%d", i+1)
	}
	if !strings.EqualFold(path.Ext(name), "."+kind) {
		name += "." + kind
	}
	return name
}

// signatureFields lays out one signature field and one date field per role
// on page, one row per role, stacked up from the bottom margin. Areas are
// page-relative, so the layout fits any page size.
func signatureFields(roles []string, page int) []templateField {
	n := float64(len(roles))
	row := math.Min(0.08, 0.8/n) // rows share the lower 80% of the page when there are many
	fields := make([]templateField, 0, 2*len(roles))
	for i, role := range roles {
		y := 0.95 - (n-float64(i))*row
		fields = append(fields,
			templateField{
				Name: role + " signature", Type: "signature", Role: role, Required: true,
				Areas: []templateArea{{X: 0.08, Y: y, W: 0.4, H: row * 0.75, Page: page}},
			},
			templateField{
				Name: role + " date", Type: "date", Role: role, Required: true,
				Areas: []templateArea{{X: 0.56, Y: y + row*0.25, W: 0.25, H: row * 0.5, Page: page}},
			},
		)
	}
	return fields
}
