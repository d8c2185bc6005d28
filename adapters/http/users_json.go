package http

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// GET /api/me answers on every page of a client, so its body is written
// by hand instead of through encoding/json's reflection: appendJSON
// writes exactly what writeJSON (encoding/json without HTML escaping)
// writes for the same value, field for field in declaration order;
// users_json_test.go holds the two equal.

// appendJSON appends d as JSON and a newline, as json.Encoder does.
func (d *currentUserDTO) appendJSON(b []byte) []byte {
	b = append(b, `{"id":`...)
	b = strconv.AppendInt(b, d.ID, 10)
	b = append(b, `,"email":`...)
	b = appendJSONString(b, d.Email)
	b = append(b, `,"contactNumber":`...)
	b = appendJSONString(b, d.ContactNumber)
	b = append(b, `,"firstName":`...)
	b = appendJSONString(b, d.FirstName)
	b = append(b, `,"lastName":`...)
	b = appendJSONString(b, d.LastName)
	b = append(b, `,"profilePictureUrl":`...)
	b = appendJSONString(b, d.ProfilePictureURL)
	b = append(b, `,"hasActiveTimer":`...)
	b = strconv.AppendBool(b, d.HasActiveTimer)
	b = append(b, `,"hasNotifications":`...)
	b = strconv.AppendBool(b, d.HasNotifications)
	b = append(b, `,"hasActiveDocument":`...)
	b = strconv.AppendBool(b, d.HasActiveDocument)
	b = append(b, `,"hasIncompleteReviewRequest":`...)
	b = strconv.AppendBool(b, d.HasIncompleteReviewRequest)
	b = append(b, `,"hasUnacknowledgedCompletedReview":`...)
	b = strconv.AppendBool(b, d.HasUnacknowledgedCompletedReview)
	b = append(b, `,"invoicesAwaitingApproval":`...)
	b = strconv.AppendInt(b, int64(d.InvoicesAwaitingApproval), 10)
	b = append(b, `,"invoicesReadyForProcessing":`...)
	b = strconv.AppendInt(b, int64(d.InvoicesReadyForProcessing), 10)
	b = append(b, `,"fteLoad":`...)
	b = appendJSONNumber(b, d.FTELoad)
	b = append(b, `,"billingRate":`...)
	b = appendJSONNumber(b, d.BillingRate)
	b = append(b, `,"billablePercentage":`...)
	b = appendJSONNumber(b, d.BillablePercentage)
	b = append(b, `,"pqy":`...)
	b = appendJSONNumber(b, d.PQY)
	b = append(b, `,"remunerationIncSuper":`...)
	b = appendJSONNumber(b, d.RemunerationIncSuper)
	b = append(b, `,"admissionDate":`...)
	if d.AdmissionDate == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '"')
		b = d.AdmissionDate.appendRFC3339(b)
		b = append(b, '"')
	}
	b = append(b, `,"office":`...)
	if o := d.Office; o == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, `{"id":`...)
		b = strconv.AppendInt(b, o.ID, 10)
		b = append(b, `,"name":`...)
		b = appendJSONString(b, o.Name)
		b = append(b, `,"phone":`...)
		b = appendJSONString(b, o.Phone)
		b = append(b, `,"website":`...)
		b = appendJSONString(b, o.Website)
		b = append(b, `,"active":`...)
		b = strconv.AppendBool(b, o.Active)
		b = append(b, `,"address":`...)
		b = o.Address.appendJSON(b)
		b = append(b, '}')
	}
	b = append(b, `,"address":`...)
	b = d.Address.appendJSON(b)
	return append(b, "}\n"...)
}

func (a *addressDTO) appendJSON(b []byte) []byte {
	b = append(b, `{"address1":`...)
	b = appendJSONString(b, a.Address1)
	b = append(b, `,"address2":`...)
	b = appendJSONString(b, a.Address2)
	b = append(b, `,"suburb":`...)
	b = appendJSONString(b, a.Suburb)
	b = append(b, `,"state":`...)
	b = appendJSONString(b, a.State)
	b = append(b, `,"postcode":`...)
	b = appendJSONString(b, a.Postcode)
	b = append(b, `,"country":`...)
	b = appendJSONString(b, a.Country)
	return append(b, '}')
}

// appendRFC3339 appends t as Time.MarshalJSON writes it, without quotes.
func (t Time) appendRFC3339(b []byte) []byte {
	return time.Time(t).UTC().AppendFormat(b, time.RFC3339)
}

// appendJSONString appends s as encoding/json writes a string without
// HTML escaping. Printable ASCII other than a quote or a backslash is
// copied; anything else (control characters, non-ASCII, invalid UTF-8)
// goes through encoding/json itself.
func appendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			return appendEncoded(b, s)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

func appendEncoded(b []byte, s string) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return append(b, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))...)
}

// appendJSONNumber appends n as encoding/json writes a json.Number: its
// text, or 0 when empty. The numbers here come from decimals, always
// valid.
func appendJSONNumber(b []byte, n json.Number) []byte {
	if n == "" {
		return append(b, '0')
	}
	return append(b, n...)
}

// meBufs holds the arrays GET /api/me's answers are written into.
var meBufs = sync.Pool{New: func() any { b := make([]byte, 0, 1024); return &b }}

// writeMe writes GET /api/me's 200 answer, as encode would.
func writeMe(w http.ResponseWriter, d *currentUserDTO) {
	p := meBufs.Get().(*[]byte)
	b := d.appendJSON((*p)[:0])
	h := w.Header()
	h["Content-Type"] = []string{"application/json"} // canonical keys: no Set needed
	h["Content-Length"] = []string{strconv.Itoa(len(b))}
	w.WriteHeader(http.StatusOK)
	w.Write(b)
	if cap(b) <= 64<<10 { // a large answer's array is left to the GC
		*p = b
		meBufs.Put(p)
	}
}
