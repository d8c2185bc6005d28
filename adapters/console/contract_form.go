package console

import (
	"errors"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"counsel/domain"
	"counsel/domain/contract"
	"counsel/domain/decimal"
)

// Contract forms use the API's field names (contractName, startDate, ...)
// so the use case's field errors land next to their inputs.

// optDate reads a date field into an Optional: empty clears it.
func optDate(v url.Values, name string, f domain.FieldErrors) contract.Optional[time.Time] {
	if t := dateField(v, name, f); t != nil {
		return contract.Some(*t)
	}
	return contract.Optional[time.Time]{Set: true}
}

func optID(v url.Values, name string, f domain.FieldErrors) contract.Optional[int64] {
	if n := idField(v, name, f); n != nil {
		return contract.Some(*n)
	}
	return contract.Optional[int64]{Set: true}
}

func typeField(v url.Values, name string, f domain.FieldErrors) *contract.Type {
	s := strings.TrimSpace(v.Get(name))
	if s == "" {
		return nil
	}
	t, err := contract.ParseType(s)
	if err != nil {
		f.Add(name, domain.ErrorMessage(err))
		return nil
	}
	return &t
}

// contractEdit reads the edit form. A field absent from the form keeps its
// value (as in the API's PUT); a present, empty one clears it.
func contractEdit(v url.Values) (contract.Edit, error) {
	f := domain.FieldErrors{}
	var e contract.Edit
	has := func(name string) bool { _, ok := v[name]; return ok }
	text := func(name string) *string {
		if !has(name) {
			return nil
		}
		return str(v, name)
	}
	e.Name, e.Description, e.Currency, e.Comments = text("contractName"), text("contractDescription"), text("currency"), text("comments")
	if has("contractType") {
		e.Type = typeField(v, "contractType", f)
	}
	if has("startDate") {
		e.StartDate = optDate(v, "startDate", f)
	}
	if has("endDate") {
		e.EndDate = optDate(v, "endDate", f)
	}
	if has("amount") {
		if d := decimalField(v, "amount", f); d != nil {
			e.Amount = contract.Some(*d)
		} else {
			e.Amount = contract.Optional[decimal.Decimal]{Set: true}
		}
	}
	for name, dst := range map[string]*contract.Optional[int64]{"matterId": &e.MatterID, "clientId": &e.ClientID, "projectId": &e.ProjectID} {
		if has(name) {
			*dst = optID(v, name, f)
		}
	}
	if has("ownerId") {
		e.OwnerID = idField(v, "ownerId", f) // empty keeps the owner
	}
	if has("noticeDays") {
		e.NoticeDays = contract.Optional[int]{Set: true, Value: daysField(v, f)}
	}
	if has("autoRenew") {
		e.AutoRenew = checked(v, "autoRenew")
	}
	return e, f.Err()
}

// daysField reads noticeDays: empty is none; the domain checks the range.
func daysField(v url.Values, f domain.FieldErrors) *int {
	s := strings.TrimSpace(v.Get("noticeDays"))
	if s == "" {
		return nil
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		f.Add("noticeDays", "noticeDays must be a whole number of days")
		return nil
	}
	return &n
}

// checked reads a checkbox sent after a hidden "false" of the same name
// (so an unticked box is told from an absent field): ticked when any
// value is "true".
func checked(v url.Values, name string) *bool {
	b := slices.Contains(v[name], "true")
	return &b
}

// contractNew reads the create form into the fields CreateContract uses.
func contractNew(v url.Values) (contract.Contract, error) {
	f := domain.FieldErrors{}
	c := contract.Contract{Name: v.Get("contractName"), Description: v.Get("contractDescription"),
		Currency: v.Get("currency"), Comments: v.Get("comments")}
	if t := typeField(v, "contractType", f); t != nil {
		c.Type = *t
	}
	c.StartDate, c.EndDate = dateField(v, "startDate", f), dateField(v, "endDate", f)
	c.Amount = decimalField(v, "amount", f)
	c.MatterID, c.ClientID, c.ProjectID = idField(v, "matterId", f), idField(v, "clientId", f), idField(v, "projectId", f)
	if id := idField(v, "ownerId", f); id != nil {
		if *id == 0 {
			f.Add("ownerId", "ownerId must be a positive integer")
		}
		c.OwnerID = *id // empty: the creator
	}
	c.NoticeDays = daysField(v, f)
	c.AutoRenew = *checked(v, "autoRenew")
	return c, f.Err()
}

// contractValues fills the edit form from a contract.
func contractValues(c contract.Contract) url.Values {
	v := url.Values{}
	v.Set("contractName", c.Name)
	v.Set("contractDescription", c.Description)
	v.Set("contractType", c.Type.String())
	v.Set("currency", c.Currency)
	v.Set("comments", c.Comments)
	for name, t := range map[string]*time.Time{"startDate": c.StartDate, "endDate": c.EndDate} {
		v.Set(name, "")
		if t != nil {
			v.Set(name, t.UTC().Format("2006-01-02"))
		}
	}
	v.Set("amount", "")
	if c.Amount != nil {
		v.Set("amount", c.Amount.StringFixed(contract.AmountPlaces))
	}
	for name, n := range map[string]*int64{"matterId": c.MatterID, "clientId": c.ClientID, "projectId": c.ProjectID} {
		v.Set(name, "")
		if n != nil {
			v.Set(name, strconv.FormatInt(*n, 10))
		}
	}
	v.Set("ownerId", "")
	if c.OwnerID != 0 {
		v.Set("ownerId", strconv.FormatInt(c.OwnerID, 10))
	}
	v.Set("noticeDays", "")
	if c.NoticeDays != nil {
		v.Set("noticeDays", strconv.Itoa(*c.NoticeDays))
	}
	v["autoRenew"] = []string{"false"}
	if c.AutoRenew {
		v["autoRenew"] = []string{"false", "true"}
	}
	return v
}

// contractFilter reads the list's query by the API's reader
// (contract.ParseFilter): the same names, repetition and errors. Its
// field errors are shown beside the filters.
func contractFilter(q url.Values) (contract.Filter, domain.FieldErrors) {
	f, err := contract.ParseFilter(q)
	var de *domain.Error
	if errors.As(err, &de) && len(de.Fields) > 0 {
		return f, de.Fields
	}
	if err != nil {
		return f, domain.FieldErrors{"": {domain.ErrorMessage(err)}}
	}
	return f, nil
}
