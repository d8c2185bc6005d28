package pdfevidence

import (
	"time"

	"counsel/domain/signing"
)

// summaryWire is the sealed summary as JSON in the signature dictionary.
type summaryWire struct {
	ContractUUID string       `json:"contractUUId"`
	ContractName string       `json:"contractName"`
	SignedAt     time.Time    `json:"signedAt"`
	Signers      []signerWire `json:"signers"`
}

type signerWire struct {
	Name     string    `json:"name"`
	Email    string    `json:"email"`
	SignedAt time.Time `json:"signedAt"`
}

func toWire(s signing.EvidenceSummary) summaryWire {
	w := summaryWire{ContractUUID: s.ContractUUID, ContractName: s.ContractName, SignedAt: s.SignedAt, Signers: []signerWire{}}
	for _, p := range s.Signers {
		w.Signers = append(w.Signers, signerWire(p))
	}
	return w
}

func fromWire(w summaryWire) signing.EvidenceSummary {
	s := signing.EvidenceSummary{ContractUUID: w.ContractUUID, ContractName: w.ContractName, SignedAt: w.SignedAt}
	for _, p := range w.Signers {
		s.Signers = append(s.Signers, signing.SummarySigner(p))
	}
	return s
}
