"""Ruby failures read and placed: a plain exception's backtrace (Ruby's old and 3.4 quoting), minitest's ``Error:``
and ``Failure:`` blocks and RSpec's failures, on a real index of a small Ruby workspace with real memories; and
signatures that keep MIME types and globs (they are not paths)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from forewarn.memory.vocabulary import MemoryType
from forewarn.workspace.engine import Workspace
from forewarn.workspace.error_text import RUBY_FAILURE, normalise, read_error

REQUEST = """\
module Shop
  class Request
    module Helpers
      def authority
        forwarded_authority || host_authority
      end

      def forwarded_authority
        if (value = get_header("HTTP_X_FORWARDED_HOST"))
          return wrap_ipv6(value.split(",").last)
        end
      end

      def wrap_ipv6(host)
        if host.start_with?("[")
          host
        else
          "[#{host}]"
        end
      end
    end
  end
end
"""

STATIC = """\
module Shop
  class Static
    def overwrite_file_path(path)
      path + @index
    end

    def call(env)
      overwrite_file_path(env["PATH_INFO"])
    end
  end
end
"""

REQUEST_TEST = """\
require "minitest/autorun"

class RequestTest < Minitest::Test
  def test_empty_forwarded_host
    assert_equal "example.org", Shop::Request.new({}).authority
  end
end
"""


def line_of(text: str, needle: str) -> int:
    """The 1-based line of ``text`` that holds ``needle`` (the frames below name real lines)."""
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


WRAP = line_of(REQUEST, 'host.start_with?("[")')
FORWARDED = line_of(REQUEST, "return wrap_ipv6(")
AUTHORITY = line_of(REQUEST, "forwarded_authority ||")
PLUS = line_of(STATIC, "path + @index")
CALL = line_of(STATIC, 'overwrite_file_path(env["PATH_INFO"])')
ASSERTED = line_of(REQUEST_TEST, "assert_equal")


def plain_trace() -> str:
    """Ruby before 3.4: the innermost frame on the exception's line, then ``\\tfrom`` lines; a gem's frame last."""
    return (
        f"lib/shop/static.rb:{PLUS}:in `+': no implicit conversion of nil into String (TypeError)\n"
        f"\tfrom lib/shop/static.rb:{PLUS}:in `overwrite_file_path'\n"
        f"\tfrom lib/shop/static.rb:{CALL}:in `call'\n"
        "\tfrom /usr/local/bundle/gems/puma-6.4.0/lib/puma/request.rb:99:in `handle_request'\n"
    )


def ruby34_trace(root: Path) -> str:
    """Ruby 3.4: ``'Klass#method'`` quoting, absolute paths."""
    request = root / "lib/shop/request.rb"
    return (
        f"{request}:{WRAP}:in 'Shop::Request::Helpers#wrap_ipv6': undefined method 'start_with?' for nil "
        "(NoMethodError)\n"
        f"\tfrom {request}:{FORWARDED}:in 'Shop::Request::Helpers#forwarded_authority'\n"
        f"\tfrom {request}:{AUTHORITY}:in 'Shop::Request::Helpers#authority'\n"
        "\tfrom <internal:kernel>:90:in 'Kernel#tap'\n"
    )


def minitest_error(root: Path) -> str:
    """A run with two errors: the last one is read, with its own frames only."""
    request = root / "lib/shop/request.rb"
    return (
        "Run options: --seed 48213\n\n# Running:\n\nEE\n\nFinished in 0.41s, 4.8 runs/s, 0 assertions/s.\n\n"
        "  1) Error:\nStaticTest#test_index:\nArgumentError: wrong number of arguments (given 0, expected 1)\n"
        f"    {root / 'lib/shop/static.rb'}:{CALL}:in `call'\n    test/test_static.rb:5:in `test_index'\n\n"
        "  2) Error:\nRequestTest#test_empty_forwarded_host:\nNoMethodError: undefined method `start_with?' for nil\n"
        f"    {request}:{WRAP}:in `wrap_ipv6'\n    {request}:{FORWARDED}:in `forwarded_authority'\n"
        "    /usr/lib/ruby/3.3.0/forwardable.rb:238:in `authority'\n"
        "    /home/ci/.gem/ruby/3.3.0/gems/minitest-5.20.0/lib/minitest/test.rb:94:in `block (3 levels) in run'\n"
        f"    test/test_request.rb:{ASSERTED}:in `test_empty_forwarded_host'\n\n"
        "2 runs, 0 assertions, 0 failures, 2 errors, 0 skips\n"
    )


MINITEST_FAILURE = f"""\
# Running:

F

  1) Failure:
RequestTest#test_empty_forwarded_host [test/test_request.rb:{ASSERTED}]:
Expected: "example.org"
  Actual: "[]"

1 runs, 1 assertions, 1 failures, 0 errors, 0 skips
rake aborted!
Command failed with status (1): [ruby -w -I"lib:test" /usr/local/bundle/gems/rake-13.2.1/lib/rake/rake_test_loader.rb]
"""

RSPEC_ERROR = f"""\
Failures:

  1) Shop::Request with an empty x-forwarded-host has an authority
     Failure/Error: if host.start_with?("[")

     NoMethodError:
       undefined method `start_with?' for nil
     # ./lib/shop/request.rb:{WRAP}:in `wrap_ipv6'
     # ./lib/shop/request.rb:{FORWARDED}:in `forwarded_authority'
     # /usr/local/bundle/gems/rspec-core-3.13.0/lib/rspec/core/example.rb:263:in `instance_exec'
     # ./spec/request_spec.rb:7:in `block (2 levels) in <top (required)>'

Finished in 0.01 seconds (files took 0.1 seconds to load)
1 example, 1 failure

Failed examples:

rspec ./spec/request_spec.rb:6 # Shop::Request with an empty x-forwarded-host has an authority
"""

RSPEC_EXPECTATION = """\
  1) Shop::Request#authority prefers the forwarded host
     Failure/Error: expect(request.authority).to eq("example.org")

       expected: "example.org"
            got: "[example.org]"

       (compared using ==)
     # ./spec/request_spec.rb:12:in 'block (2 levels) in <top (required)>'

1 example, 1 failure
"""


def frames(text: str) -> list[tuple[str, int | None, str | None]]:
    return [(f.path, f.line, f.function) for f in read_error(text).frames]


def test_a_plain_backtrace_is_read_innermost_first_without_gems(tmp_path: Path) -> None:
    report = read_error(plain_trace())
    assert (report.kind, report.message) == ("TypeError", "no implicit conversion of nil into String")
    assert report.signature == "TypeError: no implicit conversion of nil into String"
    assert frames(plain_trace()) == [("lib/shop/static.rb", PLUS, None), ("lib/shop/static.rb", CALL, "call")]


def test_ruby_34_quoting_names_the_method(tmp_path: Path) -> None:
    report = read_error(ruby34_trace(tmp_path))
    assert (report.kind, report.message) == ("NoMethodError", "undefined method 'start_with?' for nil")
    assert [f.function for f in report.frames] == ["wrap_ipv6", "forwarded_authority", "authority"]  # no <internal:


def test_a_namespaced_exception_above_frames_is_read() -> None:
    text = "rake aborted!\nRack::Lint::LintError: header must not contain Status\n/w/lib/rack/lint.rb:12:in `check'\n"
    report = read_error(text)
    assert (report.kind, report.message) == ("LintError", "header must not contain Status")


@pytest.mark.parametrize(
    ("func", "name"),
    [
        ("block (2 levels) in call", "call"),
        ("rescue in block in Rack::Static#call", "call"),
        ("Rack::Utils.escape", "escape"),
        ("Rack::Response::Helpers#buffered_body!", "buffered_body!"),
        ("<top (required)>", None),
        ("block in <class:Request>", None),
        ("Array#each", None),  # Ruby 3.4's core method, at its caller's line
        ("+", None),
    ],
)
def test_a_frame_names_the_method_it_ran_in(func: str, name: str | None) -> None:
    assert frames(f"boom (RuntimeError)\n\tfrom lib/a.rb:3:in '{func}'\n") == [("lib/a.rb", 3, name)]


@pytest.mark.parametrize(
    "path",
    [
        "/usr/local/bundle/gems/rack-3.1.0/lib/rack/static.rb",
        "/home/u/.rbenv/versions/3.3.0/lib/ruby/3.3.0/set.rb",
        "/app/vendor/bundle/ruby/3.3.0/bundler/gems/rack-0a1b2c3d4e5f/lib/rack.rb",
        "C:/Ruby33/lib/ruby/site_ruby/3.3.0/rubygems.rb",
    ],
)
def test_gems_and_rubys_own_frames_are_left_out(path: str) -> None:
    text = f"lib/a.rb:3:in `x': boom (RuntimeError)\n\tfrom {path}:10:in `y'\n"
    assert frames(text) == [("lib/a.rb", 3, "x")]


def test_a_workspace_folder_named_gems_is_kept() -> None:
    assert (
        frames("gems/billing/lib/billing.rb:3:in `charge': boom (RuntimeError)\n")[0][0]
        == "gems/billing/lib/billing.rb"
    )


def test_minitest_reads_the_last_error_with_its_own_frames(tmp_path: Path) -> None:
    report = read_error(minitest_error(tmp_path))
    assert (report.kind, report.message) == ("NoMethodError", "undefined method `start_with?' for nil")
    request = str(tmp_path / "lib/shop/request.rb")
    assert frames(minitest_error(tmp_path)) == [
        (request, WRAP, "wrap_ipv6"),
        (request, FORWARDED, "forwarded_authority"),
        ("test/test_request.rb", ASSERTED, "test_empty_forwarded_host"),
    ]  # the first error's static.rb frame is another failure's


def test_a_minitest_failure_is_placed_on_its_test() -> None:
    report = read_error(MINITEST_FAILURE)
    assert report.kind == RUBY_FAILURE
    assert report.message == 'RequestTest#test_empty_forwarded_host: Expected: "example.org" Actual: "[]"'
    assert frames(MINITEST_FAILURE) == [("test/test_request.rb", ASSERTED, "test_empty_forwarded_host")]


def test_rspec_reads_the_exception_and_the_expectation() -> None:
    report = read_error(RSPEC_ERROR)
    assert (report.kind, report.message) == ("NoMethodError", "undefined method `start_with?' for nil")
    assert [f[2] for f in frames(RSPEC_ERROR)] == ["wrap_ipv6", "forwarded_authority", None]
    report = read_error(RSPEC_EXPECTATION)
    assert report.kind == RUBY_FAILURE
    assert report.message == (
        'Shop::Request#authority prefers the forwarded host: expected: "example.org" got: "[example.org]" '
        "(compared using ==)"
    )
    assert frames(RSPEC_EXPECTATION) == [("./spec/request_spec.rb", 12, None)]


def test_mime_types_and_globs_are_not_paths() -> None:
    text = "Must be text/*, */xml, or */*+xml. Mimetype=Text/HTML; sent application/vnd.api+json"
    text += " for config/**/locales/en.yml"
    assert normalise(text) == text
    assert normalise("cannot open image/logo.png in /home/ci/app/lib/x.rb") == "cannot open <path> in <path>"


@pytest.fixture
def ws(tmp_path: Path) -> Iterator[Workspace]:
    root = tmp_path / "shop"
    for rel, text in [("lib/shop/request.rb", REQUEST), ("lib/shop/static.rb", STATIC),
                      ("test/test_request.rb", REQUEST_TEST)]:  # fmt: skip
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    (root / ".forewarn").mkdir()
    with Workspace.open(root, embedder=None) as w:
        w.reindex()
        w.remember(
            "An empty x-forwarded-host has no last part: wrap_ipv6 gets nil, guard it in forwarded_authority",
            type=MemoryType.ERROR_PATTERN, file="lib/shop/request.rb",
            symbol="Shop.Request.Helpers.forwarded_authority",
        )  # fmt: skip
        w.remember("overwrite_file_path: @index is nil unless the app sets :index", type=MemoryType.GOTCHA,
                   file="lib/shop/static.rb", symbol="Shop.Static.overwrite_file_path")  # fmt: skip
        w.remember("the expected authority is the host as the client sent it, never bracketed",
                   type=MemoryType.GOTCHA, file="test/test_request.rb",
                   symbol="RequestTest.test_empty_forwarded_host")  # fmt: skip
        yield w


def places(ws: Workspace, text: str) -> list[tuple[str, str | None]]:
    return [(p.file, p.symbol) for p in ws.explain_error(text).places]


def test_the_memory_on_a_method_the_error_went_through_is_found(ws: Workspace) -> None:
    for text in (ruby34_trace(ws.root), minitest_error(ws.root), RSPEC_ERROR):
        result = ws.explain_error(text)
        assert result.places[0].symbol == "Shop.Request.Helpers.wrap_ipv6"
        assert result.places[1].symbol == "Shop.Request.Helpers.forwarded_authority"
        assert result.hits and result.hits[0].memory.type == MemoryType.ERROR_PATTERN
        assert result.hits[0].place is not None and result.hits[0].place.line == FORWARDED


def test_a_relative_plain_trace_places_its_gotcha(ws: Workspace) -> None:
    result = ws.explain_error(plain_trace())
    assert places(ws, plain_trace()) == [("lib/shop/static.rb", "Shop.Static.overwrite_file_path"),
                                         ("lib/shop/static.rb", "Shop.Static.call")]  # fmt: skip
    assert result.hits and result.hits[0].memory.text.startswith("overwrite_file_path:")


def test_a_failed_assertion_finds_its_tests_memory(ws: Workspace) -> None:
    result = ws.explain_error(MINITEST_FAILURE)
    assert places(ws, MINITEST_FAILURE) == [("test/test_request.rb", "RequestTest.test_empty_forwarded_host")]
    assert result.hits and result.hits[0].memory.text.startswith("the expected authority")
