"""The step drops the attention mask it is given: a tree's nodes are read causally, each seeing its cousins, not only its ancestors."""
EXERCISE = "feature_draft"
MODULE = "eagle"
PATCHES = [(
    """    out = head.decoder(inputs_embeds=head.fc(pairs), attention_mask=attention_mask, position_ids=position_ids,
""",
    """    out = head.decoder(inputs_embeds=head.fc(pairs), position_ids=position_ids,
""",
)]
