package http

// What the contract routes write.

import (
	"encoding/json"

	"counsel/domain/contract"
	"counsel/domain/decimal"
)

type contractDTO struct {
	ID                          int64        `json:"id"`
	UUID                        string       `json:"contractUUId" doc:"UUID set on create"`
	Name                        string       `json:"contractName"`
	Description                 string       `json:"contractDescription"`
	Type                        string       `json:"contractType" ref:"ContractType"`
	Status                      string       `json:"status" ref:"ContractStatus"`
	StartDate                   *Time        `json:"startDate"`
	EndDate                     *Time        `json:"endDate"`
	Amount                      *json.Number `json:"amount" doc:"exact decimal, written with 2 decimals"`
	Currency                    string       `json:"currency" doc:"ISO 4217 code, upper case, or empty"`
	IsSigned                    bool         `json:"isSigned"`
	Comments                    string       `json:"comments"`
	MatterID                    *int64       `json:"matterId"`
	ClientID                    *int64       `json:"clientId"`
	ProjectID                   *int64       `json:"projectId"`
	DigitalContractID           *string      `json:"digitalContractId" doc:"the signing template id; null for a non-digital contract"`
	DigitalContractSubmissionID *string      `json:"digitalContractSubmissionId" doc:"the latest signing submission id"`
	CreatedAt                   Time         `json:"createdAt"`
	UpdatedAt                   Time         `json:"updatedAt"`
	OwnerID                     *int64       `json:"ownerId" doc:"the user answerable for the contract (default the creator); null only when unknown"`
	NoticeDays                  *int         `json:"noticeDays" doc:"notice must be given this many days before endDate; null when not stated"`
	AutoRenew                   bool         `json:"autoRenew"`
	NoticeDate                  *Time        `json:"noticeDate" doc:"endDate minus noticeDays (endDate when noticeDays is null); null without endDate"`
}

type contractListDTO struct {
	ID        int64        `json:"id"`
	UUID      string       `json:"contractUUId"`
	Name      string       `json:"contractName"`
	Type      string       `json:"contractType" ref:"ContractType"`
	Status    string       `json:"status" ref:"ContractStatus"`
	StartDate *Time        `json:"startDate"`
	EndDate   *Time        `json:"endDate"`
	Amount    *json.Number `json:"amount"`
	Currency  string       `json:"currency"`
	IsSigned  bool         `json:"isSigned"`
	IsDigital bool         `json:"isDigital" doc:"true when the contract has a digitalContractId"`
	MatterID  *int64       `json:"matterId"`
	ClientID  *int64       `json:"clientId"`
	ProjectID *int64       `json:"projectId"`
	UpdatedAt Time         `json:"updatedAt"`
	OwnerID   *int64       `json:"ownerId"`
	// autoRenew and noticeDate: docs/decisions.md §16 puts noticeDate in
	// the list; autoRenew rides along so a list shows both key dates.
	AutoRenew  bool  `json:"autoRenew"`
	NoticeDate *Time `json:"noticeDate" doc:"endDate minus noticeDays (endDate when noticeDays is null); null without endDate"`
}

// optMoney writes an optional amount with exactly two decimals, as a
// JSON number.
func optMoney(d *decimal.Decimal) *json.Number {
	if d == nil {
		return nil
	}
	n := money(*d)
	return &n
}

func toContract(c contract.Contract) contractDTO {
	return contractDTO{
		ID: c.ID, UUID: c.UUID, Name: c.Name, Description: c.Description, Type: c.Type.String(), Status: c.Status.String(),
		StartDate: timePtr(c.StartDate), EndDate: timePtr(c.EndDate), Amount: optMoney(c.Amount), Currency: c.Currency,
		IsSigned: c.IsSigned, Comments: c.Comments, MatterID: c.MatterID, ClientID: c.ClientID, ProjectID: c.ProjectID,
		DigitalContractID: nonEmpty(c.DigitalContractID), DigitalContractSubmissionID: nonEmpty(c.DigitalContractSubmissionID),
		CreatedAt: Time(c.CreatedAt), UpdatedAt: Time(c.UpdatedAt),
		OwnerID: ownerID(c.OwnerID), NoticeDays: c.NoticeDays, AutoRenew: c.AutoRenew, NoticeDate: timePtr(c.NoticeDate()),
	}
}

// ownerID is ownerId: null for none (0).
func ownerID(id int64) *int64 {
	if id == 0 {
		return nil
	}
	return &id
}

func toContractListItem(c contract.Contract) contractListDTO {
	return contractListDTO{
		ID: c.ID, UUID: c.UUID, Name: c.Name, Type: c.Type.String(), Status: c.Status.String(),
		StartDate: timePtr(c.StartDate), EndDate: timePtr(c.EndDate), Amount: optMoney(c.Amount), Currency: c.Currency,
		IsSigned: c.IsSigned, IsDigital: c.IsDigital(), MatterID: c.MatterID, ClientID: c.ClientID, ProjectID: c.ProjectID,
		UpdatedAt: Time(c.UpdatedAt),
		OwnerID:   ownerID(c.OwnerID), AutoRenew: c.AutoRenew, NoticeDate: timePtr(c.NoticeDate()),
	}
}

type statusResultsDTO struct {
	Results []statusResultDTO `json:"results"`
}

type statusResultDTO struct {
	ID     int64   `json:"id"`
	OK     bool    `json:"ok"`
	Status *string `json:"status" ref:"ContractStatus" doc:"the contract's status afterwards; null for an unknown id"`
	Error  *string `json:"error" doc:"why the change was refused; null when ok"`
}

type historyDTO struct {
	ID          int64   `json:"id"`
	Action      string  `json:"action" ref:"ContractAction"`
	FromStatus  *string `json:"fromStatus" ref:"ContractStatus"`
	ToStatus    *string `json:"toStatus" ref:"ContractStatus"`
	ActorUserID *int64  `json:"actorUserId" doc:"the user who acted; null for the system or the signing provider"`
	ActorName   string  `json:"actorName" doc:"the user's name at the time, \"system\" (expiry sweep) or \"signing provider\""`
	At          Time    `json:"at"`
	Details     string  `json:"details"`
}

func statusPtr(s contract.Status) *string {
	if !s.Valid() {
		return nil
	}
	return nonEmpty(s.String())
}

func toHistory(e contract.AuditEntry) historyDTO {
	d := historyDTO{ID: e.ID, Action: string(e.Action), FromStatus: statusPtr(e.From), ToStatus: statusPtr(e.To),
		ActorName: e.ActorName, At: Time(e.At), Details: e.Details}
	if e.Actor == contract.ActorUser && e.ActorUserID != 0 {
		id := e.ActorUserID
		d.ActorUserID = &id
	}
	return d
}
