package embeddedsign

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"net/url"
	"path"
	"strconv"
	"strings"
	"time"

	"counsel/domain"
	"counsel/domain/signing"
	"counsel/ports"
)

// CreateTemplate implements ports.SigningProvider. It stores references to
// in.Documents (their ID is the contract document's id; Content is not
// kept) and one role per entry of in.Roles, "Signer N" where a role is
// blank. EINVALID without documents, for a document without an id or
// given twice, and for a role given twice.
func (p *Provider) CreateTemplate(ctx context.Context, in signing.NewTemplate) (signing.Template, error) {
	fields := domain.FieldErrors{}
	switch {
	case len(in.Documents) == 0:
		fields.Add("documents", "at least one document is required")
	case len(in.Documents) > maxDocuments:
		fields.Add("documents", fmt.Sprintf("at most %d documents can be signed at once", maxDocuments))
	}
	docs := make([]ports.SigningDocumentRecord, 0, len(in.Documents))
	seen := map[string]bool{}
	for i, d := range in.Documents {
		id := strings.TrimSpace(d.ID)
		switch {
		case id == "":
			fields.Add("documents", fmt.Sprintf("document %d has no id", i+1))
			continue
		case seen[id]:
			fields.Add("documents", fmt.Sprintf("document %s is given twice", id))
			continue
		}
		seen[id] = true
		docs = append(docs, ports.SigningDocumentRecord{DocumentID: id, FileName: fileName(d.FileName, i), ContentType: strings.TrimSpace(d.ContentType)})
	}
	roles, rolesErr := templateRoles(in.Roles)
	if rolesErr != "" {
		fields.Add("roles", rolesErr)
	}
	if len(fields) > 0 {
		return signing.Template{}, fields.Err()
	}
	name := strings.TrimSpace(in.Name)
	if name == "" {
		name = docs[0].FileName
	}
	slug, err := p.newSlug()
	if err != nil {
		return signing.Template{}, err
	}
	now := p.now()
	rec, err := p.cfg.Store.CreateTemplate(ctx, ports.SigningTemplateRecord{
		Name: truncate(name, maxNameLen), Slug: slug, ExternalID: strings.TrimSpace(in.ExternalID),
		Roles: roles, Documents: docs, CreatedAt: now, UpdatedAt: now,
	})
	if err != nil {
		return signing.Template{}, fmt.Errorf("create signing template: %w", err)
	}
	return p.toTemplate(rec), nil
}

// GetTemplate implements ports.SigningProvider. The documents' URLs are
// signed links to the signing pages' download route, valid for
// Config.DocumentLinkTTL from now.
func (p *Provider) GetTemplate(ctx context.Context, id string) (signing.Template, error) {
	n, err := parseID("template", id)
	if err != nil {
		return signing.Template{}, err
	}
	rec, err := p.cfg.Store.Template(ctx, n)
	if err != nil {
		return signing.Template{}, err
	}
	return p.toTemplate(rec), nil
}

func (p *Provider) toTemplate(rec ports.SigningTemplateRecord) signing.Template {
	t := signing.Template{
		ID: formatID(rec.ID), Name: rec.Name, Slug: rec.Slug, Roles: rec.Roles,
		Documents: make([]signing.TemplateDocument, len(rec.Documents)),
		CreatedAt: rec.CreatedAt, UpdatedAt: rec.UpdatedAt,
	}
	expires := p.now().Add(p.cfg.DocumentLinkTTL).Unix()
	for i, d := range rec.Documents {
		t.Documents[i] = signing.TemplateDocument{ID: d.DocumentID, FileName: d.FileName, URL: p.documentLink(rec.Slug, d.DocumentID, expires)}
	}
	return t
}

// documentLink is a template document's URL: the signing pages' download
// route under the template's slug, with an expiry and a signature over
// both, so the link works for a while and cannot be altered.
func (p *Provider) documentLink(slug, documentID string, expires int64) string {
	exp := strconv.FormatInt(expires, 10)
	q := url.Values{"expires": {exp}, "sig": {p.linkSignature(slug, documentID, exp)}}
	return p.base + "/sign/" + slug + "/documents/" + url.PathEscape(documentID) + "?" + q.Encode()
}

func (p *Provider) linkSignature(slug, documentID, expires string) string {
	m := hmac.New(sha256.New, p.linkKey)
	m.Write([]byte(slug + "\x00" + documentID + "\x00" + expires))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// checkLink verifies a template document link at now.
func (p *Provider) checkLink(slug, documentID, expires, sig string, now time.Time) bool {
	exp, err := strconv.ParseInt(expires, 10, 64)
	if err != nil || now.Unix() > exp {
		return false
	}
	want := p.linkSignature(slug, documentID, expires)
	return hmac.Equal([]byte(sig), []byte(want))
}

// templateRoles names every role, "Signer N" where blank, and refuses a
// role given twice (as the DocuSeal adapter does, so both providers agree).
func templateRoles(in []string) ([]string, string) {
	if len(in) == 0 {
		return []string{defaultRole(0)}, ""
	}
	if len(in) > maxSubmitters {
		return nil, fmt.Sprintf("at most %d roles", maxSubmitters)
	}
	roles := make([]string, len(in))
	seen := map[string]bool{}
	for i, r := range in {
		r = truncate(strings.TrimSpace(r), maxNameLen)
		if r == "" {
			r = defaultRole(i)
		}
		key := strings.ToLower(r)
		if seen[key] {
			return nil, fmt.Sprintf("role %q is given twice; every signer needs a role of their own", r)
		}
		seen[key] = true
		roles[i] = r
	}
	return roles, ""
}

func defaultRole(i int) string { return fmt.Sprintf("Signer %d", i+1) }

// fileName is the base name of a document's file name, "document-N"
// when it has none.
func fileName(name string, i int) string {
	n := path.Base(strings.ReplaceAll(strings.TrimSpace(name), "\\", "/"))
	if n == "" || n == "." || n == "/" {
		return fmt.Sprintf("document-%d", i+1)
	}
	return truncate(n, 255)
}
