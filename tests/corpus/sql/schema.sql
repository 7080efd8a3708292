-- Schema of a small blog.

CREATE SCHEMA IF NOT EXISTS blog; -- @def module blog

CREATE TYPE blog.post_state AS ENUM ('draft', 'published', 'archived'); -- @def enum blog.post_state @def enum_member blog.post_state.draft @def enum_member blog.post_state.published @def enum_member blog.post_state.archived

CREATE TYPE address AS ( -- @def struct address
    street TEXT, -- @def field address.street
    city TEXT -- @def field address.city
);

CREATE TABLE users ( -- @def table users
    id BIGSERIAL PRIMARY KEY, -- @def field users.id
    email VARCHAR(255) NOT NULL UNIQUE, -- @def field users.email
    display_name TEXT, -- @def field users.display_name
    created_at TIMESTAMP NOT NULL DEFAULT now() -- @def field users.created_at
);

CREATE TABLE blog.posts ( -- @def table blog.posts
    id BIGSERIAL PRIMARY KEY, -- @def field blog.posts.id
    author_id BIGINT NOT NULL REFERENCES users (id), -- @def field blog.posts.author_id
    title TEXT NOT NULL, -- @def field blog.posts.title
    body TEXT, -- @def field blog.posts.body
    published BOOLEAN DEFAULT FALSE -- @def field blog.posts.published
);

CREATE INDEX posts_author_idx ON blog.posts (author_id); -- @def index posts_author_idx
CREATE UNIQUE INDEX users_email_idx ON users (email); -- @def index users_email_idx

CREATE VIEW published_posts AS -- @def view published_posts
SELECT p.id, p.title, u.display_name
FROM blog.posts p
JOIN users u ON u.id = p.author_id
WHERE p.published;

CREATE OR REPLACE VIEW blog.post_counts AS -- @def view blog.post_counts
SELECT author_id, count(*) AS total
FROM blog.posts
GROUP BY author_id;

CREATE FUNCTION blog.slugify(title TEXT) RETURNS TEXT AS $$ -- @def function blog.slugify
BEGIN
    RETURN lower(regexp_replace(title, '[^a-zA-Z0-9]+', '-', 'g'));  -- @ref call lower in blog.slugify @ref call regexp_replace in blog.slugify
END;
$$ LANGUAGE plpgsql;

CREATE OR REPLACE FUNCTION touch_updated() RETURNS trigger AS $$ -- @def function touch_updated
BEGIN
    UPDATE users SET created_at = now() WHERE id = NEW.id;
    RETURN NEW;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER users_touch BEFORE UPDATE ON users -- @def trigger users_touch
FOR EACH ROW EXECUTE FUNCTION touch_updated();

CREATE MATERIALIZED VIEW blog.author_stats AS -- @def view blog.author_stats
SELECT author_id, max(id) AS latest_post
FROM blog.posts
GROUP BY author_id;

ALTER TABLE users ADD COLUMN bio TEXT; -- @def field users.bio

INSERT INTO users (email, display_name) VALUES ('ada@example.com', 'Ada');
