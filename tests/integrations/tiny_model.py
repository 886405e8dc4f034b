"""A tiny causal language model and its tokenizer, built from a config in the test (no Hub
download): a byte-level BPE trained on the scripted replies, so any text round-trips, and a
one-layer Llama of a few thousand parameters. Needs torch, transformers and tokenizers."""

from __future__ import annotations

from typing import Any


def tiny_tokenizer(texts: list[str]) -> Any:
    """A byte-level BPE tokenizer trained on ``texts`` (plus an end-of-text token)."""
    from tokenizers import ByteLevelBPETokenizer
    from transformers import PreTrainedTokenizerFast

    bpe = ByteLevelBPETokenizer()
    bpe.train_from_iterator(texts, vocab_size=400, min_frequency=1, special_tokens=["<eos>"])
    return PreTrainedTokenizerFast(
        tokenizer_object=bpe._tokenizer, eos_token="<eos>", pad_token="<eos>"
    )


def tiny_model(tokenizer: Any) -> Any:
    """A randomly initialised one-layer Llama for ``tokenizer`` (seeded: the same weights
    every run)."""
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(0)
    config = LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=16,
        intermediate_size=32,
        num_hidden_layers=1,
        num_attention_heads=2,
        num_key_value_heads=1,
        max_position_embeddings=256,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
        bos_token_id=tokenizer.eos_token_id,
    )
    return LlamaForCausalLM(config)
