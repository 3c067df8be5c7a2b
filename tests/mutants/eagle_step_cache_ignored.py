"""The head's cache is not passed to its decoder: every call starts at position 0 and sees only its own pairs."""
EXERCISE = "feature_draft"
MODULE = "eagle"
PATCHES = [(
    """    out = head.decoder(inputs_embeds=head.fc(pairs), attention_mask=attention_mask, position_ids=position_ids,
                       cache=cache, use_cache=cache is not None)
""",
    """    out = head.decoder(inputs_embeds=head.fc(pairs), attention_mask=attention_mask, position_ids=position_ids)
""",
)]
