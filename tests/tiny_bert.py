"""A tiny random-weight BERT built offline, loadable like `bert-base-uncased` (for BERTScore tests).

Import the fixture into a test module: `from tiny_bert import tiny_bert`.
"""

from __future__ import annotations

from pathlib import Path

import pytest

CORPUS = [
    "the model improves accuracy by three points on the test set",
    "a residual block with an identity shortcut; dropout of 0.5 is used",
    "yes no the figure table plot shows results encoder layers",
]


def build_tiny_bert(out: Path) -> Path:
    """A 2-layer BERT (hidden 32) with a WordPiece tokenizer trained here by `tokenizers`."""
    import torch
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors, trainers
    from transformers import BertConfig, BertModel, BertTokenizerFast

    tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer(lowercase=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    tok.train_from_iterator(CORPUS * 5, trainers.WordPieceTrainer(vocab_size=200, special_tokens=specials, show_progress=False))
    cls, sep = tok.token_to_id("[CLS]"), tok.token_to_id("[SEP]")
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B [SEP]", special_tokens=[("[CLS]", cls), ("[SEP]", sep)]
    )
    BertTokenizerFast(tokenizer_object=tok, model_max_length=512).save_pretrained(out)
    torch.manual_seed(0)
    config = BertConfig(
        vocab_size=tok.get_vocab_size(), hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
        intermediate_size=64, max_position_embeddings=512,
    )
    BertModel(config).save_pretrained(out)
    return out


@pytest.fixture(scope="session")
def tiny_bert(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_bert(tmp_path_factory.mktemp("tiny-bert"))
