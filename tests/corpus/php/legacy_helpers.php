<?php

namespace Legacy\Cache { // @def module Legacy\Cache
    const TTL = 3600; // @def constant Legacy\Cache\TTL

    interface Store // @def interface Legacy\Cache\Store
    {
        public function get(string $key): mixed; // @decl method Legacy\Cache\Store\get
    }

    class FileStore implements Store // @def class Legacy\Cache\FileStore
    {
        public $directory; // @def property Legacy\Cache\FileStore\directory

        function __construct($directory) // @def constructor Legacy\Cache\FileStore\__construct
        {
            $this->directory = $directory;
        }

        public function get(string $key): mixed // @def method Legacy\Cache\FileStore\get
        {
            $path = $this->directory . '/' . md5($key);
            return is_file($path) ? unserialize(file_get_contents($path)) : null;
        }
    }

    function cache_key(string ...$parts): string // @def function Legacy\Cache\cache_key
    {
        return implode(':', $parts);
    }
}

namespace {
    define('APP_ROOT', __DIR__); // @def constant APP_ROOT

    function render_header(string $title): void // @def function render_header
    {
        ?>
        <h1><?= htmlspecialchars($title) ?></h1>
        <?php
    }
}
