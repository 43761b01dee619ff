package recall

// The words of the hybrid rules, for HybridRulesText and HybridRules.Text.
const (
	exchangeRuleText = "a user's turn takes the better of its score and its reply's, unless the question asks what the agent said or names the conversation"
	sessionRuleText  = "standardised again and raised by its session's evidence"
)

// RulesNotRecorded and ChannelsNotRecorded follow, in a legend of a
// memctx record's scores, the hybrid rules (HybridRulesText) and the
// turn-context rule (ChannelTuning.ContextText) of this version's
// defaults, given for a record written before the rules
// (journal.Options.Rules) or the channel tuning (journal.Options.Channels)
// were recorded, which does not say which ran.
const (
	RulesNotRecorded    = "(this version's defaults: the record predates the record of the rules that ran)"
	ChannelsNotRecorded = "(this version's default: the record predates the record of the channels' tuning)"
)

// HybridRulesText says in words the rules a hybrid search applies to the
// fused scores after the fusion, for a legend of its scores:
// the exchange order (of a user's turn and the agent's
// reply after it, the user's turn takes the better fused score, except
// for a question that asks what the agent said, where the reply takes it,
// or names the conversation, where the pair keeps its order), the session
// rules (the scores standardised again and raised by their
// session's evidence) where they ran, and the speaker and date boosts.
//
// scope is the search's Scope ("" as ScopeResource) and embedder the
// embedder's ID ("" when not known). The session rules run in a
// resource-wide search only, and not with HashID, whose defaults turn them
// off (DefaultSessionWeight, DefaultTopicWeight); with the embedder not
// known they are said as a condition. No rule changes a lone candidate's
// score. The text begins "then mnemo's hybrid rules (" and has no final
// period.
func HybridRulesText(scope, embedder string) string {
	rules := "; " + sessionRuleText
	switch {
	case scope == string(ScopeThread) || embedder == HashID:
		rules = ""
	case embedder == "":
		rules = "; unless the embedder was " + HashID + ", " + sessionRuleText
	}
	return "then mnemo's hybrid rules (" + exchangeRuleText + rules + "; speaker and date boosts)"
}
