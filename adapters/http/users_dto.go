package http

// What the user routes write (DTOs) and read (inputs).

import (
	"encoding/json"

	"counsel/domain"
	"counsel/domain/user"
)

// addressIn is an address of a request: absent parts are empty. It has
// addressDTO's fields, under its own name (the AddressIn schema).
type addressIn addressDTO

type addressDTO struct {
	Address1 string `json:"address1"`
	Address2 string `json:"address2"`
	Suburb   string `json:"suburb"`
	State    string `json:"state"`
	Postcode string `json:"postcode"`
	Country  string `json:"country"`
}

func toAddress(a user.Address) addressDTO { return addressDTO(a) }

type officeDTO struct {
	ID      int64      `json:"id"`
	Name    string     `json:"name"`
	Phone   string     `json:"phone"`
	Website string     `json:"website"`
	Active  bool       `json:"active"`
	Address addressDTO `json:"address"`
}

func toOffice(o user.Office) officeDTO {
	return officeDTO{ID: o.ID, Name: o.Name, Phone: o.Phone, Website: o.Website, Active: o.Active, Address: toAddress(o.Address)}
}

func toOfficePtr(o *user.Office) *officeDTO {
	if o == nil {
		return nil
	}
	v := toOffice(*o)
	return &v
}

type formattedUserDTO struct {
	ID                int64       `json:"id"`
	Email             string      `json:"email"`
	FirstName         string      `json:"firstName"`
	LastName          string      `json:"lastName"`
	FullName          string      `json:"fullName" doc:"first name joined with last name"`
	BillingRate       json.Number `json:"billingRate" doc:"hourly billing rate; set by the latest remuneration or by an edit"`
	ProfilePictureURL string      `json:"profilePictureUrl"`
	ContactNumber     string      `json:"contactNumber"`
	Active            bool        `json:"active"`
	Office            *officeDTO  `json:"office"`
	IsLegal           bool        `json:"isLegal"`
	IsStaff           bool        `json:"isStaff"`
	Address           addressDTO  `json:"address"`
}

func toFormattedUser(u user.User) formattedUserDTO {
	return formattedUserDTO{ID: u.ID, Email: u.Email, FirstName: u.FirstName, LastName: u.LastName, FullName: u.FullName(),
		BillingRate: money(u.BillingRate), ProfilePictureURL: u.ProfilePictureURL, ContactNumber: u.ContactNumber,
		Active: u.Active, Office: toOfficePtr(u.Office), IsLegal: u.IsLegal, IsStaff: u.IsStaff, Address: toAddress(u.Address)}
}

type userDTO struct {
	formattedUserDTO
	AdmissionDate *Time        `json:"admissionDate"`
	PQY           *json.Number `json:"pqy" doc:"post-qualification years now, less PQE adjustments; null without an admission date"`
	Roles         []roleDTO    `json:"roles"`
}

func toUser(p user.Profile) userDTO {
	return userDTO{formattedUserDTO: toFormattedUser(p.User), AdmissionDate: timePtr(p.AdmissionDate), PQY: years(p.PQY), Roles: toRoles(p.Roles)}
}

type currentUserDTO struct {
	ID                               int64       `json:"id"`
	Email                            string      `json:"email"`
	ContactNumber                    string      `json:"contactNumber"`
	FirstName                        string      `json:"firstName"`
	LastName                         string      `json:"lastName"`
	ProfilePictureURL                string      `json:"profilePictureUrl"`
	HasActiveTimer                   bool        `json:"hasActiveTimer"`
	HasNotifications                 bool        `json:"hasNotifications"`
	HasActiveDocument                bool        `json:"hasActiveDocument"`
	HasIncompleteReviewRequest       bool        `json:"hasIncompleteReviewRequest"`
	HasUnacknowledgedCompletedReview bool        `json:"hasUnacknowledgedCompletedReview"`
	InvoicesAwaitingApproval         int         `json:"invoicesAwaitingApproval"`
	InvoicesReadyForProcessing       int         `json:"invoicesReadyForProcessing"`
	FTELoad                          json.Number `json:"fteLoad" doc:"from the latest remuneration; 0 when none"`
	BillingRate                      json.Number `json:"billingRate" doc:"from the latest remuneration; 0 when none"`
	BillablePercentage               json.Number `json:"billablePercentage" doc:"from the latest remuneration; 0 when none"`
	PQY                              json.Number `json:"pqy" doc:"post-qualification years now, less PQE adjustments; 0 without an admission date"`
	RemunerationIncSuper             json.Number `json:"remunerationIncSuper" doc:"from the latest remuneration; 0 when none"`
	AdmissionDate                    *Time       `json:"admissionDate"`
	Office                           *officeDTO  `json:"office"`
	Address                          addressDTO  `json:"address"`
}

func toCurrentUser(p user.Profile) currentUserDTO {
	// The timer, notification, document, review and invoice fields belong
	// to modules outside this service: always false and 0 here.
	d := currentUserDTO{ID: p.ID, Email: p.Email, ContactNumber: p.ContactNumber, FirstName: p.FirstName, LastName: p.LastName,
		ProfilePictureURL: p.ProfilePictureURL, AdmissionDate: timePtr(p.AdmissionDate), Office: toOfficePtr(p.Office), Address: toAddress(p.Address),
		FTELoad: "0", BillingRate: "0.00", BillablePercentage: "0", RemunerationIncSuper: "0.00", PQY: "0.00"}
	if r := p.Latest; r != nil {
		d.FTELoad, d.BillingRate = plain(r.FTELoad), money(r.BillingRate)
		d.BillablePercentage, d.RemunerationIncSuper = plain(r.BillablePercentage), money(r.RemunerationIncSuper)
	}
	if y := years(p.PQY); y != nil {
		d.PQY = *y
	}
	return d
}

type offeringReviewersDTO struct {
	OfferingID int64   `json:"offeringId"`
	UserIDs    []int64 `json:"userIds" doc:"the offering's reviewers after the change"`
}

func optAddress(o Opt[addressIn]) *user.Address {
	if !o.Set {
		return nil
	}
	a := user.Address(o.V) // null gives an empty address
	return &a
}

type userIn struct {
	Email             Opt[string]    `json:"email" required:"create"`
	FirstName         Opt[string]    `json:"firstName"`
	LastName          Opt[string]    `json:"lastName"`
	ContactNumber     Opt[string]    `json:"contactNumber"`
	ProfilePictureURL Opt[string]    `json:"profilePictureUrl"`
	BillingRate       numberIn       `json:"billingRate"`
	Active            Opt[bool]      `json:"active"`
	IsLegal           Opt[bool]      `json:"isLegal"`
	IsStaff           Opt[bool]      `json:"isStaff"`
	OfficeID          Opt[int64]     `json:"officeId" doc:"null or 0 removes the office"`
	Address           Opt[addressIn] `json:"address" doc:"null empties the address"`
	AdmissionDate     dateIn         `json:"admissionDate" doc:"null removes it"`
	Password          Opt[string]    `json:"password" doc:"8 to 128 characters; creation only (PUT ignores it: use /api/users/changepassword)"`
	RoleIDs           Opt[[]int64]   `json:"roleIds" doc:"the roles held; absent: the default roles on creation, unchanged on edit"`
}

// input converts the body, reporting values of the wrong kind by field.
func (in userIn) input() (user.Input, error) {
	f := domain.FieldErrors{}
	var out user.Input
	p := &out.Patch
	p.Email, p.FirstName, p.LastName = optString(in.Email), optString(in.FirstName), optString(in.LastName)
	p.ContactNumber, p.ProfilePictureURL = optString(in.ContactNumber), optString(in.ProfilePictureURL)
	p.BillingRate = in.BillingRate.optional("billingRate", f)
	p.Active, p.IsLegal, p.IsStaff = optBool(in.Active, "active", f), optBool(in.IsLegal, "isLegal", f), optBool(in.IsStaff, "isStaff", f)
	if in.OfficeID.Set {
		p.OfficeID = &in.OfficeID.V // null gives 0: no office
	}
	p.Address = optAddress(in.Address)
	p.AdmissionDate = in.AdmissionDate.optional("admissionDate", f)
	if in.Password.Set && !in.Password.Null {
		out.Password = &in.Password.V
	}
	if in.RoleIDs.Set && !in.RoleIDs.Null {
		ids := in.RoleIDs.V
		if ids == nil {
			ids = []int64{}
		}
		out.RoleIDs = &ids
	}
	return out, f.Err()
}

// changePasswordIn is the spec's input of a password change: only id,
// password and currentPassword are read; the other fields are ignored,
// whatever their type.
type changePasswordIn struct {
	ID              int64  `json:"id" doc:"the user; absent or 0: the caller"`
	Password        string `json:"password" required:"true" doc:"the new password, 8 to 128 characters"`
	CurrentPassword string `json:"currentPassword" doc:"your current password, when changing your own: it stands in for recent authentication (a wrong one is a 401, counted toward the lockout)"`
	Email           any    `json:"email" doc:"ignored"`
	FirstName       any    `json:"firstName" doc:"ignored"`
	LastName        any    `json:"lastName" doc:"ignored"`
	OfficeID        any    `json:"officeId" doc:"ignored"`
	Address         any    `json:"address" doc:"ignored"`
}

// reviewersIn names the users whose permission to review changes.
type reviewersIn struct {
	UserIDs []int64 `json:"userIds" required:"true"`
}
